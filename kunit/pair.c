// SPDX-License-Identifier: GPL-2.0
/* The device-pair fixture of the datapath and counter suites (see pair.h). */
#include <linux/skbuff.h>

#include "../shim/softcx.h"
#include "pair.h"

int scx_pair_create(struct kunit *test, struct scx_pair *p, const char *model, u32 nch_max)
{
	int side, err;
	u32 i;

	memset(p, 0, sizeof(*p));
	p->test = test;
	p->nch_max = nch_max;
	if (nch_max > SCX_KT_NCH)
		return -EINVAL;
	p->dev = scx_kt_dev_create(test);
	if (!p->dev)
		return -ENODEV;
	err = scx_hw_adapter_create(scx_hw_model_parse(model), 2, p->dev, &p->hw);
	if (err) {
		p->hw = NULL;
		return err;
	}
	for (side = 0; side < 2; side++) {
		const struct scx_os_layout os = SCX_OS_LAYOUT;

		p->fn[side] = scx_hw_function(p->hw, side);
		scx_hw_set_irq_ctx(p->fn[side], &p->irq[side]);
		for (i = 0; i < SCX_KT_NCH; i++) {
			scx_kt_chan_init(test, &p->ch[side][i], p->dev, i);
			p->os_ch[side][i] = &p->ch[side][i];
		}
		err = scx_port_create(p->fn[side], p->dev, nch_max, &os, &p->port[side]);
		if (err) {
			p->port[side] = NULL;
			return err;
		}
	}
	return 0;
}

void scx_pair_destroy(struct scx_pair *p)
{
	int side;

	for (side = 0; side < 2; side++) {
		if (p->open[side])
			scx_pair_close(p, side);
		scx_port_destroy(p->port[side]);
		p->port[side] = NULL;
	}
	if (p->hw)
		scx_hw_adapter_destroy(p->hw);
	p->hw = NULL;
	scx_kt_dev_destroy(p->dev);
	p->dev = NULL;
}

int scx_pair_open(struct scx_pair *p, int side, u32 nch, u32 mtu, u32 log_sq, u32 log_rq)
{
	struct scx_port_params *pp = &p->params[side];
	struct scx_tx_done done;
	int err;
	u32 i;

	*pp = (struct scx_port_params){
		.nch = nch,
		.mtu = mtu,
		.log_sq_size = log_sq,
		.log_rq_size = log_rq,
		.tx_mpwqe = p->tx_mpwqe[side],
	};
	err = scx_port_open(p->port[side], pp, p->os_ch[side]);
	if (err)
		return err;
	p->open[side] = true;
	/* the shim schedules every NAPI once after open; that poll arms the CQs */
	for (i = 0; i < nch; i++)
		scx_kt_napi(scx_port_channel(p->port[side], i), 64, &done);
	return 0;
}

void scx_pair_close(struct scx_pair *p, int side)
{
	scx_port_close(p->port[side]);
	p->open[side] = false;
}

void scx_pair_poll(struct scx_pair *p, int side)
{
	const int budget = 64;
	struct scx_tx_done done;
	bool again = true;
	int rounds = 0;
	u32 i;

	if (!p->open[side])
		return;
	while (again && rounds++ < 10000) {
		again = false;
		for (i = 0; i < p->params[side].nch; i++) {
			struct scx_channel *c = scx_port_channel(p->port[side], i);

			if (scx_kt_napi(c, budget, &done) >= budget)
				again = true;
			p->done[side].packets += done.packets;
			p->done[side].bytes += done.bytes;
		}
	}
	KUNIT_EXPECT_LT_MSG(p->test, rounds, 10000, "NAPI on side %d never completes", side);
}

u32 scx_pair_len(u32 seq)
{
	return 60 + (seq * 97) % (1514 - 60 + 1);
}

int scx_pair_send(struct scx_pair *p, int side, u32 ch, u32 seq0, u32 n, u32 batch)
{
	struct scx_channel *c = scx_port_channel(p->port[side], ch);
	struct scx_tx_pkt *pkt;
	u32 i, unrung = 0;
	int rc = 0;

	if (!c)
		return -ENODEV;
	pkt = kmalloc(sizeof(*pkt), GFP_KERNEL);
	if (!pkt)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		u32 seq = seq0 + i, len = scx_pair_len(seq);

		rc = scx_kt_tx_build(p->dev, seq, len, seq % 3 == 1, pkt);
		if (rc)
			break;
		rc = scx_channel_xmit(c, pkt);
		if (rc < 0) {
			scx_kt_tx_abort(p->dev, pkt);
			break;
		}
		p->sent[side]++;
		p->sent_bytes[side] += len;
		if (rc == SCX_TX_STOP) {
			/* the shim stops the queue; completions wake it */
			scx_channel_count_stop(c);
			scx_channel_doorbell(c);
			unrung = 0;
			scx_pair_poll(p, !side);
			scx_pair_poll(p, side);
			if (!scx_channel_tx_room(c)) {
				rc = -ENOSPC;
				break;
			}
			scx_channel_count_wake(c);
			rc = 0;
			continue;
		}
		if (++unrung == batch) {
			scx_channel_doorbell(c);
			unrung = 0;
			scx_pair_poll(p, !side);
			scx_pair_poll(p, side);
		}
	}
	if (unrung)
		scx_channel_doorbell(c);
	scx_pair_poll(p, !side);
	scx_pair_poll(p, side);
	kfree(pkt);
	return rc < 0 ? rc : (int)i;
}

u32 scx_pair_received(struct scx_pair *p, int side, u32 seq0, u32 n, u32 *dups)
{
	u32 got = 0, seq, i, copies;

	*dups = 0;
	for (seq = seq0; seq < seq0 + n && seq < SCX_KT_MAX_SEQ; seq++) {
		copies = 0;
		for (i = 0; i < SCX_KT_NCH; i++)
			copies += test_bit(seq, p->ch[side][i].seen);
		got += copies > 0;
		*dups += copies > 1 ? copies - 1 : 0;
	}
	for (i = 0; i < SCX_KT_NCH; i++)
		*dups += p->ch[side][i].rx_dups;
	return got;
}

void scx_pair_expect_pools_clean(struct scx_pair *p, int side)
{
	struct kunit *test = p->test;
	u32 i;

	for (i = 0; i < SCX_KT_NCH; i++) {
		struct scx_kt_chan *ch = &p->ch[side][i];

		KUNIT_EXPECT_EQ_MSG(test, ch->pools_destroyed, ch->pools_created,
				    "side %d ch %u: page_pools not destroyed", side, i);
		KUNIT_EXPECT_EQ_MSG(test, ch->pools_inflight, 0u,
				    "side %d ch %u: page_pool destroyed with pages in flight",
				    side, i);
		KUNIT_EXPECT_EQ_MSG(test, ch->bufs_out, 0ull,
				    "side %d ch %u: RX buffers neither recycled nor delivered",
				    side, i);
		KUNIT_EXPECT_EQ_MSG(test, ch->rx_allocs,
				    ch->rx_recycles + ch->rx_delivered + ch->rx_refused,
				    "side %d ch %u: allocations vs returns", side, i);
	}
}

u64 scx_pair_stat(struct kunit *test, struct scx_port *port, const char *name)
{
	u32 n = scx_stats_count(port), i;
	char *names = kunit_kcalloc(test, n, SCX_STAT_NAME_LEN, GFP_KERNEL);
	u64 *vals = kunit_kcalloc(test, n, sizeof(u64), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, names);
	KUNIT_ASSERT_NOT_NULL(test, vals);
	scx_stats_names(port, names);
	scx_stats_values(port, vals);
	for (i = 0; i < n; i++)
		if (!strcmp(names + i * SCX_STAT_NAME_LEN, name))
			return vals[i];
	KUNIT_FAIL(test, "no counter %s", name);
	return U64_MAX;
}
