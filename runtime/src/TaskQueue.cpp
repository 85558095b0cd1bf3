//===- TaskQueue.cpp - A thread running queued work in order --------------===//

#include "TaskQueue.h"

#include "Internal.h"

using namespace tessera::runtime;

TaskQueue::TaskQueue() : thread([this] { run(); }) {}

TaskQueue::~TaskQueue() {
  synchronize();
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  thread.join();
}

void TaskQueue::enqueue(Task task, bool always) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    queue.emplace_back(std::move(task), always);
  }
  wake.notify_all();
}

void TaskQueue::waitIdle() {
  std::unique_lock<std::mutex> lock(mutex);
  idle.wait(lock, [&] { return queue.empty() && !busy; });
}

tessera_status TaskQueue::synchronize() {
  std::unique_lock<std::mutex> lock(mutex);
  idle.wait(lock, [&] { return queue.empty() && !busy; });
  tessera_status status = failure;
  failure = TESSERA_SUCCESS;
  if (status)
    return fail(status, std::move(message));
  return TESSERA_SUCCESS;
}

void TaskQueue::run() {
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    wake.wait(lock, [&] { return stopping || !queue.empty(); });
    if (queue.empty())
      return; // stopping
    auto [task, always] = std::move(queue.front());
    queue.pop_front();
    if (!failure || always) {
      busy = true;
      lock.unlock();
      tessera_status status = guarded(task);
      std::string error = status ? tesseraGetLastError() : "";
      lock.lock();
      busy = false;
      if (status && !failure) {
        failure = status;
        message = std::move(error);
      }
    }
    // Run or dropped: a waiting synchronize() may be done.
    if (queue.empty())
      idle.notify_all();
  }
}
