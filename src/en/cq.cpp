// SPDX-License-Identifier: GPL-2.0
#include "en/cq.h"

#include "en/cmd.h"

namespace softcx::en {

int cq_create(Cq *cq, bus::Function *fn, void *os_dev, u8 log_size, u32 vector)
{
	prm::CreateCqIn in = {};
	prm::CreateObjOut out = {};
	u32 n = 1u << log_size;
	int err;

	err = cq->ring.alloc(os_dev, n * prm::kCqeSize);
	if (err)
		return err;
	err = cq->db.alloc(os_dev, 2 * sizeof(prm::be32));
	if (err)
		goto err_ring;

	cq->cqes = static_cast<prm::Cqe64 *>(cq->ring.cpu);
	cq->dbrec = static_cast<prm::be32 *>(cq->db.cpu);
	cq->log_size = log_size;
	cq->mask = n - 1;
	cq->cc = 0;
	cq->fn = fn;
	for (u32 i = 0; i < n; i++)
		cq->cqes[i].op_own = prm::kCqeInitOpOwn;

	in.log_cq_size = log_size;
	in.c_eqn.set(vector);
	in.dbr_addr.set(cq->db.dma);
	in.pas.set(cq->ring.dma);
	err = cmd_run(fn, prm::kCmdCreateCq, &in, &out);
	if (err)
		goto err_db;
	cq->cqn = out.obj_num.get();
	return 0;

err_db:
	cq->db.free(os_dev);
err_ring:
	cq->ring.free(os_dev);
	return err;
}

void cq_destroy(Cq *cq, void *os_dev)
{
	if (!cq->ring.cpu)
		return;
	cmd_destroy(cq->fn, prm::kCmdDestroyCq, cq->cqn);
	cq->db.free(os_dev);
	cq->ring.free(os_dev);
}

} /* namespace softcx::en */
