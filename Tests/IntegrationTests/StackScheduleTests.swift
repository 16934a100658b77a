import Foundation
import PiRelaySDK
import Testing

/// Scheduled prompts through the real daemon, fake pi and fake messenger: `/schedule` in a chat,
/// `pi-relayd schedule` in the terminal, the runs' output in the chat, and the schedules kept
/// across a kill -9.
@Suite(.serialized) struct StackScheduleTests {
    static func config(_ chat: E2EChatHome) -> E2EConfig {
        var config = chat.config()
        // busyPolicy steer: a scheduled prompt is a follow-up all the same.
        config.extra = ["schedules:", "  minimumIntervalSeconds: 2", "sessions:", "  busyPolicy: steer"]
        return config
    }

    /// `schedules.minimumIntervalSeconds: 2` and `/schedule every 2s`: two runs, each answered
    /// in the chat; then `/schedule list` and `/schedule cancel` from the chat.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aChatScheduleRunsTwiceAndIsCancelled() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start(Self.config(chat))
            _ = try await chat.newBoundSession("nightly")
            let refused = try await chat.say("/schedule every 1s too fast")
            #expect(refused["reply"]?["text"]?.stringValue?.contains("schedules.minimumIntervalSeconds") == true, "\(refused)")
            let added = try await chat.say("/schedule every 2s tz=UTC ping the build")
            let text = added["reply"]?["text"]?.stringValue ?? ""
            #expect(text.hasPrefix("Scheduled #1 every 2s (UTC) in nightly, next "), "\(added)")
            let prompts = try await chat.waitForPrompts(2, timeout: .seconds(30))
            #expect(prompts.allSatisfy { $0["message"] == "ping the build" }, "\(prompts)")
            #expect(prompts.allSatisfy { $0["streamingBehavior"] == "followUp" }, "\(prompts)")
            _ = try await chat.waitForFinal(2)
            // The chat sees what prompted each run.
            #expect(chat.posts("echo").filter { $0["text"] == "⏰ ping the build" }.count >= 2, "\(chat.posts("echo"))")
            let list = try await chat.say("/schedule list")
            #expect(list["reply"]?["text"]?.stringValue?.contains("#1 every 2s (UTC) in nightly") == true, "\(list)")
            let cancelled = try await chat.say("/schedule cancel 1")
            #expect(cancelled["reply"]?["text"]?.stringValue == "Schedule #1 (every 2s) removed.", "\(cancelled)")
            let count = chat.piCommands("prompt").count
            try await Task.sleep(for: .seconds(5))
            #expect(chat.piCommands("prompt").count <= count + 1, "at most a run already under way when it was cancelled")
            #expect(try await chat.run(["schedule", "list", "--json"]).json().arrayValue == [])
        }
    }

    /// A scheduled prompt waits while its session compacts (pi-rpc.md: a prompt during a
    /// compaction is not taken); another session's schedules run on time meanwhile, rather than
    /// waiting in line behind it and being counted as missed.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aScheduleWaitingForItsSessionHoldsUpNoOther() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start(Self.config(chat), environment: ["FAKE_PI_COMPACT_MS": "20000"])
            _ = try await chat.newBoundSession("slow")
            let quick = try await chat.run(["new", "--cwd", chat.workspace, "--name", "quick"])
            #expect(quick.status == 0, "\(quick)")
            // Unstructured: the compaction's command answers only when it is over.
            let compacting = Task { try await chat.run(["compact", "slow"]) }
            try await waitUntil("slow compacts", timeout: .seconds(30)) { !chat.piCommands("compact").isEmpty }
            #expect(try await chat.run(["schedule", "add", "slow", "every", "2s", "from", "slow"]).status == 0)
            #expect(try await chat.run(["schedule", "add", "quick", "every", "2s", "from", "quick"]).status == 0)
            let added = ContinuousClock.now
            try await waitUntil("quick's schedule ran twice", timeout: .seconds(30)) {
                chat.piCommands("prompt").filter { $0["message"] == "from quick" }.count >= 2
            }
            let took = ContinuousClock.now - added
            #expect(took < .seconds(10), "quick's second run came \(took) after it was added, behind slow's compaction")
            _ = try? await compacting.value
        }
    }

    /// A run is sent only once saved (docs/SCHEDULES.md): while the schedules cannot be saved (a
    /// full disk: the daemon's file size limit at one byte, as in `BoundDiskFullTests`), due runs
    /// are not sent, and the chat is told once why; once the disk takes writes, they run again.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aRunThatCannotBeSavedIsNotSent() async throws {
        try await E2EChatHome.with { chat in
            let daemon = try await chat.start(Self.config(chat))
            _ = try await chat.newBoundSession("api")
            #expect(try await chat.run(["schedule", "add", "api", "every", "2s", "ping", "the", "build"]).status == 0)
            _ = try await chat.waitForPrompts(1, timeout: .seconds(30))
            try BoundFileSizeLimit.set(daemon.pid, bytes: 1)
            try await waitUntil("the chat hears why", timeout: .seconds(30)) {
                chat.posts("notice").contains { $0["text"]?.stringValue?.contains("the schedules cannot be saved") == true }
            }
            let held = chat.piCommands("prompt").count
            try await Task.sleep(for: .seconds(6))
            #expect(chat.piCommands("prompt").count <= held, "runs were sent that a restart would send again")
            #expect(chat.posts("notice").filter { $0["text"]?.stringValue?.contains("cannot be saved") == true }.count == 1, "told once")
            try BoundFileSizeLimit.set(daemon.pid, bytes: nil)
            _ = try await chat.waitForPrompts(held + 1, timeout: .seconds(60))
        }
    }

    /// What goes wrong: a chat with no session, an unknown number, a cancel without one, and a
    /// schedule whose session ended, removed at its next run with a line in the log.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func mistakesAreAnsweredAndASchedulesEndedSessionTakesItAlong() async throws {
        try await E2EChatHome.with { chat in
            _ = try await chat.start(Self.config(chat))
            let unbound = try await chat.say("/schedule every 1h hello")
            #expect(unbound["reply"]?["text"]?.stringValue?.hasPrefix("No session here.") == true, "\(unbound)")
            _ = try await chat.newBoundSession("brief")
            let none = try await chat.say("/schedule cancel 9")
            #expect(none["reply"]?["text"]?.stringValue == "No schedule #9. /schedule list shows them.", "\(none)")
            let which = try await chat.say("/schedule cancel")
            #expect(which["reply"]?["text"]?.stringValue?.hasPrefix("which one?") == true, "\(which)")
            let removed = try await chat.home.cli.run(["schedule", "rm", "9"])
            #expect(removed.status != 0 && removed.stderr.contains("no schedule #9"), "\(removed)")
            let added = try await chat.say("/schedule every 2s never runs")
            #expect(added["reply"]?["text"]?.stringValue?.hasPrefix("Scheduled #1") == true, "\(added)")
            #expect(try await chat.say("/end")["reply"]?["text"]?.stringValue?.hasPrefix("Ended") == true)
            try await waitUntil("the schedule goes with its session", timeout: .seconds(30)) {
                chat.home.read("logs/pi-relayd.log").contains("schedule 1 (every 2s) removed: its session")
            }
            #expect(try await chat.run(["schedule", "list", "--json"]).json().arrayValue == [])
            #expect(!chat.piCommands("prompt").contains { $0["message"] == "never runs" })
        }
    }

    /// `pi-relayd schedule add` twice (missed=run and missed=skip), a kill -9, both runs made
    /// overdue in the state file while the daemon is down: on start the first runs once, the
    /// second is skipped and logged, and both are still listed with their next runs.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func schedulesSurviveAKillAndAMissedRunFollowsItsPolicy() async throws {
        try await E2EChatHome.with { chat in
            let config = Self.config(chat)
            let daemon = try await chat.start(config)
            _ = try await chat.newBoundSession("api")
            let first = try await chat.run(["schedule", "add", "api", "every", "1h", "missed=run", "catch", "up"])
            #expect(first.status == 0, "\(first)")
            let second = try await chat.run([
                "schedule", "add", "api", "cron", "0", "9", "*", "*", "1-5", "tz=Europe/Berlin", "missed=skip", "skip", "it",
            ])
            #expect(second.status == 0 && second.stdout.contains("#2 cron 0 9 * * 1-5 (Europe/Berlin), next "), "\(second)")
            let bad = try await chat.home.cli.run(["schedule", "add", "api", "every", "1h", "tz=Moon/Base", "x"])
            #expect(bad.status != 0 && bad.stderr.contains("time zone Moon/Base"), "\(bad)")
            let file = chat.home.path + "/state/schedules.json"
            #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)

            await chat.home.crash(daemon)
            let overdue = chat.home.read("state/schedules.json").replacingOccurrences(
                of: #""next" : "[^"]*""#, with: "\"next\" : \"2020-01-01T00:00:00Z\"", options: .regularExpression)
            try overdue.write(toFile: file, atomically: true, encoding: .utf8)
            let before = chat.piCommands("prompt").count
            _ = try await chat.start(config)
            let prompts = try await chat.waitForPrompts(before + 1, timeout: .seconds(30))
            #expect(prompts.last?["message"] == "catch up", "\(prompts)")
            try await waitUntil("the skip is logged", timeout: .seconds(30)) {
                chat.home.read("logs/pi-relayd.log").contains("schedule 2 (cron 0 9 * * 1-5) missed its run")
            }
            // The chat watching the session is told too: the log is not where a phone looks.
            try await waitUntil("the chat hears of the skip", timeout: .seconds(30)) {
                chat.posts("notice").contains { $0["text"]?.stringValue?.contains("Schedule #2 (cron 0 9 * * 1-5) missed its run") == true }
            }
            try await Task.sleep(for: .seconds(2))
            #expect(!chat.piCommands("prompt").contains { $0["message"] == "skip it" })
            let listed = try await chat.run(["schedule", "list", "--json"]).json().arrayValue ?? []
            #expect(listed.map { $0["number"]?.intValue } == [1, 2], "\(listed)")
            #expect(listed.allSatisfy { ($0["next"]?.stringValue ?? "") > "2026" }, "\(listed)")
            #expect(listed.first?["runs"] == 1)
            let removed = try await chat.run(["schedule", "rm", "2"])
            #expect(removed.status == 0 && removed.stdout.contains("removed #2"), "\(removed)")
        }
    }

    /// The same on Telegram, as a phone sees it: the schedule's answer, then each run's prompt
    /// (▶ ⏰ …) and its answer in the chat that watches the session.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aScheduleRunsIntoATelegramChat() async throws {
        try await TelegramStack.with { stack in
            try await stack.start(extra: "schedules:\n  minimumIntervalSeconds: 2\n")
            let chat = TelegramStack.alice.id
            try await stack.dm("/new \(stack.workspace) nightly")
            try await stack.waitForBotMessage(in: chat, containing: "Started nightly")
            try await stack.dm("/schedule every 2s tz=Europe/Berlin check the build")
            try await stack.waitForBotMessage(in: chat, containing: "Scheduled #1 every 2s (Europe/Berlin) in nightly, next ")
            let prompts = try await waitFor("two scheduled runs", timeout: .seconds(30)) { () -> [JSONValue]? in
                let seen = stack.piPrompts(containing: "check the build")
                return seen.count >= 2 ? seen : nil
            }
            #expect(prompts.allSatisfy { $0["message"] == "check the build" }, "\(prompts)")
            try await stack.waitForBotMessage(in: chat, containing: "check the build", count: 3)
            try await stack.dm("/schedule cancel 1")
            try await stack.waitForBotMessage(in: chat, containing: "Schedule #1 (every 2s) removed.")
        }
    }
}
