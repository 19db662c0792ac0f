/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cabled pair of emulated functions driven the way the shim drives them:
 * two ports on one adapter, each with a real netdev (allocated, never
 * registered) whose private data is the shim's struct scx_priv, the
 * channels' os_channel its struct scx_chan (real NAPI contexts, TX queues,
 * XDP xmit locks), so the core calls the shim's real OS hooks. Frames
 * delivered to the netdev's stack end in the fixture's rx_handler; NAPI
 * rounds are run by the test thread.
 */
#ifndef SCX_KUNIT_PAIR_H
#define SCX_KUNIT_PAIR_H

#include <linux/spinlock.h>

#include "os_hooks.h"

struct scx_priv;

struct scx_pair {
	struct kunit *test;
	struct device *dev;
	struct scx_hw_adapter *hw;
	struct scx_hw_function *fn[2];
	struct scx_port *port[2];
	bool open[2];
	bool tx_mpwqe[2];		/* open with multi-packet WQE sessions */
	bool rx_striding[2];		/* open with striding RQs */
	bool rx_hw_gro[2];		/* open with SHAMPO (needs rx_striding) */
	u32 nch_max;
	struct scx_port_params params[2];
	struct scx_kt_irq irq[2];
	struct net_device *netdev[2];
	struct scx_priv *priv[2];	/* netdev_priv(netdev[side]) */
	struct scx_kt_chan ch[2][SCX_KT_NCH];	/* what the fixture saw, per channel */
	void *os_ch[2][SCX_KT_NCH];	/* &priv[side]->ch[i] */
	/* page_pools of the pair's RQs not freed yet (xdp mem_connect / mem_disconnect) */
	spinlock_t pools_lock;
	struct {
		const void *pool;
		struct scx_kt_chan *ch;
	} pools[4 * SCX_KT_NCH];
	u32 pools_untracked;		/* the table was full */
	bool probes;
	u64 sent_bytes[2];		/* by side */
	u32 sent[2];
	struct scx_tx_done done[2];	/* TX completions reported by polls */
};

/* Adapter + two ports (nch_max channels each); nothing open. 0 or -errno. */
int scx_pair_create(struct kunit *test, struct scx_pair *p, const char *model, u32 nch_max);
/* Close what is open, destroy ports, adapter and device. Safe on partial setup. */
void scx_pair_destroy(struct scx_pair *p);

/* Open one side (nch channels, mtu, ring sizes) and run the first NAPI round. */
int scx_pair_open(struct scx_pair *p, int side, u32 nch, u32 mtu, u32 log_sq, u32 log_rq);
void scx_pair_close(struct scx_pair *p, int side);

/* The shim channel (os_channel) of a side's channel i. */
static inline struct scx_chan *scx_pair_chan(struct scx_pair *p, int side, u32 i)
{
	return p->os_ch[side][i];
}

/* NAPI rounds on every open channel of a side until none has work left. */
void scx_pair_poll(struct scx_pair *p, int side);

/*
 * Send n frames from side's channel ch, sequence numbers seq0.., frame i
 * of length len(i) (split into head + page fragment when split(i)), ringing
 * the doorbell every batch frames and polling both sides after each
 * doorbell. Stops posting at SCX_TX_STOP until completions make room.
 * Returns frames posted, or a negative errno.
 */
int scx_pair_send(struct scx_pair *p, int side, u32 ch, u32 seq0, u32 n, u32 batch);
/* The length scx_pair_send() uses for frame seq (60 .. 1514). */
u32 scx_pair_len(u32 seq);

/* Sequence numbers side received, over all its channels: how many, and duplicates. */
u32 scx_pair_received(struct scx_pair *p, int side, u32 seq0, u32 n, u32 *dups);
/* Sum of a struct scx_kt_chan field over a side's channels. */
#define scx_pair_sum(p, side, field) ({					\
	u64 __s = 0;							\
	u32 __i;							\
	for (__i = 0; __i < SCX_KT_NCH; __i++)				\
		__s += (p)->ch[side][__i].field;			\
	__s;								\
})

/* Counter `name` of a port as ethtool -S shows it (a KUnit failure when there is none). */
u64 scx_pair_stat(struct kunit *test, struct scx_port *port, const char *name);

/*
 * Every page_pool of a side freed, which page_pool does only once every
 * page it handed out came back (KUnit expectations).
 */
void scx_pair_expect_pools_clean(struct scx_pair *p, int side);

#endif /* SCX_KUNIT_PAIR_H */
