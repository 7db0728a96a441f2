// The VM's storage pool (storage_pool.h).
#include "storage_pool.h"

#include <utility>

namespace relax::runtime {

NDArray StoragePool::take(int64_t nbytes, DLDevice device) {
  NDArray block;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = idle_.rbegin(); it != idle_.rend(); ++it) {
      if (int64_t(it->nbytes()) != nbytes || it->device().device_type != device.device_type ||
          it->device().device_id != device.device_id)
        continue;
      block = std::move(*it);
      idle_.erase(std::next(it).base());
      idle_bytes_ -= uint64_t(nbytes);
      break;
    }
  }
  if (!block.defined()) block = NDArray::empty({nbytes}, DataType::UInt(8), device);
  std::weak_ptr<StoragePool> pool = weak_from_this();
  const DLTensor& t = *block.dltensor();
  return NDArray::borrow(t, [pool, block]() mutable {
    if (std::shared_ptr<StoragePool> p = pool.lock()) p->give_back(std::move(block));
  });
}

void StoragePool::give_back(NDArray block) {
  std::list<NDArray> freed;  // released outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  idle_bytes_ += block.nbytes();
  idle_.push_back(std::move(block));
  while (idle_bytes_ > max_idle_bytes_ && !idle_.empty()) {
    idle_bytes_ -= idle_.front().nbytes();
    freed.splice(freed.end(), idle_, idle_.begin());
  }
}

uint64_t StoragePool::idle_bytes() {
  std::lock_guard<std::mutex> lock(mu_);
  return idle_bytes_;
}

}  // namespace relax::runtime
