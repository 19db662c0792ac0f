// SPDX-License-Identifier: GPL-2.0
/* CQE decompression: the cold part (the per-packet part is inline in cqe_decomp.h). */
#include "en/cqe_decomp.h"

namespace softcx::en {

/* Each slot gets the iteration count of the lap before the one it is next written in. */
void cqe_decomp_stamp(Cq *cq)
{
	for (u32 i = 0; i <= cq->mask; i++) {
		u32 c = cq->cc + ((i - cq->cc) & cq->mask);

		cq->cqes[i].signature = (u8)((c >> cq->log_size) - 1);
	}
}

} /* namespace softcx::en */
