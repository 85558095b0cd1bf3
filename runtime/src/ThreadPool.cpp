//===- ThreadPool.cpp - Persistent worker threads of a host device --------===//

#include "ThreadPool.h"

#include <algorithm>
#include <atomic>

using namespace tessera::runtime;

struct ThreadPool::Loop {
  const std::function<void(int64_t, int64_t)> *body;
  int64_t total, chunk;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> finished{0}; // items whose chunk has returned
  std::mutex mutex;
  std::condition_variable done;
};

ThreadPool::ThreadPool(int size) {
  for (int i = 1; i < std::max(1, size); ++i)
    workers.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  for (std::thread &worker : workers)
    worker.join();
}

void ThreadPool::runChunks(Loop &loop) {
  for (;;) {
    int64_t begin = loop.next.fetch_add(loop.chunk);
    if (begin >= loop.total)
      return;
    int64_t end = std::min(loop.total, begin + loop.chunk);
    (*loop.body)(begin, end);
    // The body lives on the caller's stack: once every item has finished,
    // the caller may return, so nothing touches the loop's body after that.
    if (loop.finished.fetch_add(end - begin) + (end - begin) == loop.total) {
      std::lock_guard<std::mutex> lock(loop.mutex);
      loop.done.notify_all();
    }
  }
}

void ThreadPool::work() {
  for (;;) {
    std::shared_ptr<Loop> loop;
    {
      std::unique_lock<std::mutex> lock(mutex);
      wake.wait(lock, [&] { return stopping || !loops.empty(); });
      if (stopping)
        return;
      loop = loops.front();
    }
    runChunks(*loop);
    // Exhausted: no worker needs to look at it again.
    std::lock_guard<std::mutex> lock(mutex);
    auto it = std::find(loops.begin(), loops.end(), loop);
    if (it != loops.end())
      loops.erase(it);
  }
}

void ThreadPool::parallelFor(
    int64_t total, int64_t chunk,
    const std::function<void(int64_t, int64_t)> &body) {
  if (total <= 0)
    return;
  auto loop = std::make_shared<Loop>();
  loop->body = &body;
  loop->total = total;
  loop->chunk = std::max<int64_t>(1, chunk);
  bool helped = !workers.empty() && loop->chunk < total;
  if (helped) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      loops.push_back(loop);
    }
    wake.notify_all();
  }
  runChunks(*loop);
  std::unique_lock<std::mutex> lock(loop->mutex);
  loop->done.wait(lock, [&] { return loop->finished.load() == total; });
}
