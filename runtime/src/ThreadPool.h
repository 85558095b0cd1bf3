//===- ThreadPool.h - Persistent worker threads of a host device -*- C++
//-*-===//

#ifndef TESSERA_RUNTIME_THREADPOOL_H
#define TESSERA_RUNTIME_THREADPOOL_H

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tessera::runtime {

/// `size` threads in all: the caller of parallelFor and size - 1 workers
/// that live as long as the pool. Several callers (streams) may run loops at
/// once; the workers help the oldest first.
class ThreadPool {
public:
  explicit ThreadPool(int size);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  int size() const { return static_cast<int>(workers.size()) + 1; }

  /// Calls body(begin, end) for chunks of [0, total) of at most `chunk`
  /// items, on the workers and the calling thread; returns when every chunk
  /// has finished.
  void parallelFor(int64_t total, int64_t chunk,
                   const std::function<void(int64_t, int64_t)> &body);

private:
  struct Loop;
  static void runChunks(Loop &loop);
  void work();

  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::shared_ptr<Loop>> loops;
  bool stopping = false;
  std::vector<std::thread> workers;
};

} // namespace tessera::runtime

#endif // TESSERA_RUNTIME_THREADPOOL_H
