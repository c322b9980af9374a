// The thread pool in a process forked after its workers started: the child has none of them (fork copies only the
// calling thread) and must start its own rather than wait on threads that do not exist. Not in the
// ThreadSanitizer suite: TSan aborts a multi-threaded process's child that starts threads.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>

#include "engine/core/thread_pool.h"

using namespace ie;

TEST_CASE("thread pool: a forked child runs jobs on workers of its own") {
  ThreadPool pool(3);
  std::atomic<int> ran{0};
  pool.run(64, [&](int64_t) { ran.fetch_add(1); });
  REQUIRE(ran.load() == 64);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // A hang here shows as the alarm's signal in the parent's check.
    alarm(20);
    std::atomic<int> in_child{0};
    for (int job = 0; job < 50; ++job) pool.run(64, [&](int64_t) { in_child.fetch_add(1); });
    _exit(in_child.load() == 50 * 64 ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  // The parent's workers are untouched.
  pool.run(64, [&](int64_t) { ran.fetch_add(1); });
  CHECK(ran.load() == 128);
}
