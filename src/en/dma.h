/* SPDX-License-Identifier: GPL-2.0 */
/* Coherent DMA memory the driver shares with the device (rings, doorbell records). */
#pragma once

#include "en/os.h"

namespace softcx::en {

struct DmaBuf {
	void *cpu;
	u64 dma;
	u32 size;

	int alloc(void *os_dev, u32 bytes)
	{
		cpu = scx_os_dma_alloc(os_dev, bytes, &dma);
		if (!cpu)
			return -SCX_ENOMEM;
		size = bytes;
		__builtin_memset(cpu, 0, bytes);
		return 0;
	}

	void free(void *os_dev)
	{
		if (cpu)
			scx_os_dma_free(os_dev, size, cpu, dma);
		cpu = nullptr;
	}
};

/* A doorbell record pair (SQ: -, producer; RQ: producer; CQ: set_ci, arm). */
constexpr u32 kDbRecBytes = 2 * sizeof(prm::be32);

/* What every queue hands the device: its ring and its doorbell records. */
struct QueueMem {
	DmaBuf ring;
	DmaBuf db;

	int alloc(void *os_dev, u32 ring_bytes)
	{
		int err = ring.alloc(os_dev, ring_bytes);

		if (!err)
			err = db.alloc(os_dev, kDbRecBytes);
		if (err)
			free(os_dev);
		return err;
	}

	void free(void *os_dev)
	{
		db.free(os_dev);
		ring.free(os_dev);
	}
};

} /* namespace softcx::en */
