// The process boundary around a SimGrid run: what a child process's end and
// answer turn into in the parent, and the checks on an answer before use.
#include "sim/engine/isolated_run.h"

#include <cmath>
#include <csignal>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

namespace pf {
namespace {

using preflight::RunAnswer;
using preflight::RunError;

RunAnswer Times(std::vector<double> start, std::vector<double> end, double makespan_s = 2,
                long long flows = 1) {
  RunAnswer a;
  a.mutable_times()->mutable_start_s()->Add(start.begin(), start.end());
  a.mutable_times()->mutable_end_s()->Add(end.begin(), end.end());
  a.mutable_times()->set_makespan_s(makespan_s);
  a.mutable_times()->set_flows(flows);
  return a;
}

RunAnswer Error(RunError::Kind kind, const std::string& message) {
  RunAnswer a;
  a.mutable_error()->set_kind(kind);
  a.mutable_error()->set_message(message);
  return a;
}

TEST(IsolatedRun, TimesCrossTheProcessBoundaryBitForBit) {
  const double third = 1.0 / 3;
  RunAnswer a = AnswerFromChild([&] { return Times({0, third}, {third, 2 * third}, 2 * third, 7); });
  TaskTimes t = TimesFromAnswer(a, 2);
  EXPECT_EQ(t.start_s, (std::vector<double>{0, third}));
  EXPECT_EQ(t.end_s, (std::vector<double>{third, 2 * third}));
  EXPECT_EQ(t.makespan_s, 2 * third);
  EXPECT_EQ(t.flows, 7);
}

TEST(IsolatedRun, AnErrorCrossesTheProcessBoundaryWithItsKind) {
  RunAnswer a =
      AnswerFromChild([] { return AnswerOf([]() -> TaskTimes { throw std::invalid_argument("bad gpu"); }); });
  ASSERT_TRUE(a.has_error());
  EXPECT_EQ(a.error().kind(), RunError::BAD_INPUT);
  EXPECT_EQ(a.error().message(), "bad gpu");
}

TEST(IsolatedRun, AChildKilledByASignalIsReportedInWords) {
  RunAnswer a = AnswerFromChild([]() -> RunAnswer {
    const rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    std::raise(SIGSEGV);
    return {};
  });
  ASSERT_TRUE(a.has_error());
  EXPECT_EQ(a.error().kind(), RunError::INTERNAL);
  EXPECT_EQ(a.error().message(), "the SimGrid run was killed by signal " + std::to_string(SIGSEGV) + " (" +
                                     strsignal(SIGSEGV) + ")");
}

TEST(IsolatedRun, AChildExitingWithoutAnAnswerIsReportedInWords) {
  RunAnswer a = AnswerFromChild([]() -> RunAnswer { _exit(7); });
  ASSERT_TRUE(a.has_error());
  EXPECT_EQ(a.error().kind(), RunError::INTERNAL);
  EXPECT_EQ(a.error().message(), "the SimGrid run exited with status 7 without an answer");
  // An empty answer is no answer either.
  EXPECT_EQ(AnswerFromChild([] { return RunAnswer(); }).error().message(),
            "the SimGrid run exited with status 0 without an answer");
}

TEST(IsolatedRun, AnswerOfSortsExceptionsIntoBadInputAndInternal) {
  struct Case {
    std::function<TaskTimes()> run;
    RunError::Kind kind;
    std::string message;
  };
  const Case cases[] = {
      {[]() -> TaskTimes { throw std::invalid_argument("bad input"); }, RunError::BAD_INPUT, "bad input"},
      {[]() -> TaskTimes { throw std::logic_error("never ran"); }, RunError::INTERNAL, "never ran"},
      {[]() -> TaskTimes { throw std::runtime_error("io"); }, RunError::INTERNAL, "io"},
      {[]() -> TaskTimes { throw 42; }, RunError::INTERNAL, "the SimGrid run threw a non-standard exception"},
  };
  for (const Case& c : cases) {
    RunAnswer a = AnswerOf(c.run);
    ASSERT_TRUE(a.has_error()) << c.message;
    EXPECT_EQ(a.error().kind(), c.kind) << c.message;
    EXPECT_EQ(a.error().message(), c.message);
  }
}

TEST(IsolatedRun, ErrorsBecomeTheExceptionsMainMapsToExitCodes) {
  try {
    TimesFromAnswer(Error(RunError::BAD_INPUT, "workload names GPU 9"), 1);
    FAIL() << "nothing thrown";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "workload names GPU 9");
  }
  for (RunError::Kind kind : {RunError::INTERNAL, RunError::KIND_UNSPECIFIED}) {
    try {
      TimesFromAnswer(Error(kind, "the SimGrid run was killed by signal 9 (Killed)"), 1);
      FAIL() << "nothing thrown";
    } catch (const std::invalid_argument& e) {
      FAIL() << "bad input: " << e.what();
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "the SimGrid run was killed by signal 9 (Killed)");
    }
  }
}

TEST(IsolatedRun, AnswersThatDoNotFitTheWorkloadAreRejected) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    RunAnswer answer;
    std::string message;
  };
  const Case cases[] = {
      {RunAnswer(), "the SimGrid run answered neither task times nor an error"},
      {Times({0}, {1, 2}), "the SimGrid run answered 1 start and 2 end times for a workload of 2 tasks"},
      {Times({0, 1, 2}, {1, 2, 3}),
       "the SimGrid run answered 3 start and 3 end times for a workload of 2 tasks"},
      {Times({0, nan}, {1, 2}), "the SimGrid run answered start time nan for task 1"},
      {Times({0, 1}, {inf, 2}), "the SimGrid run answered end time inf for task 0"},
      {Times({0, 1}, {1, 2}, nan), "the SimGrid run answered makespan nan"},
      {Times({0, 1}, {1, 2}, 2, -1), "the SimGrid run answered -1 flows"},
  };
  for (const Case& c : cases) {
    try {
      TimesFromAnswer(c.answer, 2);
      ADD_FAILURE() << "accepted; expected: " << c.message;
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(e.what(), c.message);
    }
  }
}

}  // namespace
}  // namespace pf
