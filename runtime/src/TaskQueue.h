//===- TaskQueue.h - A thread running queued work in order -----*- C++ -*-===//

#ifndef TESSERA_RUNTIME_TASKQUEUE_H
#define TESSERA_RUNTIME_TASKQUEUE_H

#include "tessera/runtime/tessera_runtime.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace tessera::runtime {

/// A unit of queued work; a failure returns its status after recording its
/// message with fail().
using Task = std::function<tessera_status()>;

/// A thread running queued tasks in order (a host stream). After a task
/// fails, the tasks queued behind it are dropped until synchronize()
/// reports the failure (but for those enqueued as `always`: event marks,
/// which someone may be waiting for); then the queue runs again.
class TaskQueue {
public:
  TaskQueue();
  /// Waits for the queue, then stops its thread.
  ~TaskQueue();
  TaskQueue(const TaskQueue &) = delete;
  TaskQueue &operator=(const TaskQueue &) = delete;

  void enqueue(Task task, bool always = false);
  /// Waits until every queued task has run (or been dropped); returns the
  /// first failure since the last call, with its message, and clears it.
  tessera_status synchronize();
  /// Waits like synchronize(), keeping the failure for it.
  void waitIdle();

private:
  void run();

  std::mutex mutex;
  std::condition_variable wake, idle;
  std::deque<std::pair<Task, bool>> queue; // task, always
  bool busy = false, stopping = false;
  tessera_status failure = TESSERA_SUCCESS;
  std::string message;
  std::thread thread; // last: starts once the rest is built
};

} // namespace tessera::runtime

#endif // TESSERA_RUNTIME_TASKQUEUE_H
