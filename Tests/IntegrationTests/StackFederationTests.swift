import Foundation
import PiRelaySDK
import PostgresSupport
import Testing

/// One federation of machines through a real PostgreSQL (docs/FEDERATION.md): each daemon with
/// its own home, bot and pi-relay-federation, all on one database made for the test. A chat on
/// the laptop's bot lists the desktop's sessions; a second daemon calling itself "desktop" is
/// refused; a stopped desktop goes offline; a database that goes away leaves local work going.
@Suite struct StackFederationTests {
    static let alice = TelegramStack.alice.id

    @Test(.timeLimit(ScenarioGate.limit(minutes: 6)))
    func machinesShareTheirSessionsThroughTheDatabase() async throws {
        try await Self.withLaptopAndDesktop { database, laptop, desktop in
            try await TelegramStack.with(gated: false, bot: (id: "7000000003", username: "impostor_test_bot")) { impostor in
                try await Self.scenario(database: database, laptop: laptop, desktop: desktop, impostor: impostor)
            }
        }
    }

    /// A database, and a laptop and a desktop with a bot each (a fake Telegram of its own).
    static func withLaptopAndDesktop(_ body: (PostgresServer, TelegramStack, TelegramStack) async throws -> Void) async throws {
        try await PostgresServer.with { database in
            try await TelegramStack.with { laptop in
                try await TelegramStack.with(gated: false, bot: (id: "7000000002", username: "desktop_test_bot")) { desktop in
                    try await body(database, laptop, desktop)
                }
            }
        }
    }

    /// Starts the laptop and the desktop on the database, each with a session of its own (the
    /// laptop's `api`, the desktop's `web`); their daemons by machine name.
    /// `desktopAllows`: the desktop's own telegram allowlist, when not alice and bob.
    static func startMachines(
        database: PostgresServer, laptop: TelegramStack, desktop: TelegramStack, desktopAllows: [String]? = nil,
        desktopEnvironment: [String: String] = [:]
    ) async throws -> [String: Daemon] {
        var daemons: [String: Daemon] = [:]
        for (name, stack) in [("laptop", laptop), ("desktop", desktop)] {
            try stack.home.linkBuiltPlugin("pi-relay-federation", as: "federation")
            let daemon = try await stack.start(
                extra: "machine: \(name)\n",
                environment: ["PI_RELAYD_DATABASE_URL": database.url].merging(name == "desktop" ? desktopEnvironment : [:]) { $1 },
                allowed: name == "desktop" ? desktopAllows : nil)
            try await daemon.waitForRunning("federation", timeout: .seconds(60))
            daemons[name] = daemon
        }
        for (stack, name) in [(laptop, "api"), (desktop, "web")] {
            let folder = stack.home.root + "/" + name
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            _ = try await stack.json("new", "--cwd", folder, "--name", name)
        }
        return daemons
    }

    static func scenario(database: PostgresServer, laptop: TelegramStack, desktop: TelegramStack, impostor: TelegramStack) async throws {
        let daemons = try await startMachines(database: database, laptop: laptop, desktop: desktop)

        // The laptop hears of the desktop's session, and a chat on its bot lists both machines.
        try await waitForFederation(laptop, "the desktop online with its web session") { report in
            report["machines"]?.arrayValue?.contains {
                $0["name"] == "desktop" && $0["online"] == true && $0["sessions"]?.arrayValue?.first?["name"] == "web"
            } == true
        }
        try await laptop.dm("/sessions")
        let list = try await laptop.waitForBotMessage(in: alice, containing: "Sessions on desktop (online):")
        let text = list.first?["text"]?.stringValue ?? ""
        #expect(text.contains("Sessions on laptop:") && text.contains("1. api") && text.contains("web"), "\(text)")
        #expect(try await laptop.cli(["status"]).stdout.contains("federation: desktop online"))

        // A second daemon that calls itself "desktop" is refused while the desktop is heard from.
        try impostor.home.linkBuiltPlugin("pi-relay-federation", as: "federation")
        let impostorDaemon = try await impostor.start(extra: "machine: desktop\n", environment: ["PI_RELAYD_DATABASE_URL": database.url])
        let refused = try await waitForFederation(impostor, "the machine name refused") {
            $0["problem"]?.stringValue?.contains("another daemon runs as machine \"desktop\"") == true
        }
        #expect(refused["line"]?.stringValue?.hasPrefix("federation: another daemon runs as machine") == true, "\(refused)")
        #expect(try await impostor.cli(["status"]).stdout.contains("PROBLEM: federation: another daemon runs as machine \"desktop\""))
        // It goes first: it keeps asking for the name, and would rightly take it once the desktop
        // has been silent past the offline limit, which is not what the next step looks at.
        _ = await impostorDaemon.terminate()

        // The desktop stops: within the offline limit (15 s on the database's clock) it is offline.
        _ = await daemons["desktop"]!.terminate()
        try await waitForFederation(laptop, "the desktop offline", timeout: 40) { report in
            report["machines"]?.arrayValue?.contains { $0["name"] == "desktop" && $0["online"] == false } == true
        }
        try await laptop.dm("/sessions")
        try await laptop.waitForBotMessage(in: alice, containing: "Sessions on desktop (offline since")

        // The database goes away: the laptop says so, and its own sessions still answer.
        try await database.stop(immediately: true)
        try await waitForFederation(laptop, "the database unreachable", timeout: 30) { $0["unreachableSince"]?.stringValue != nil }
        #expect(try await laptop.cli(["status"]).stdout.contains("PROBLEM: federation: database unreachable since"))
        let doctor = try await laptop.cli(["doctor"])
        #expect(doctor.stdout.contains("database unreachable since"), "\(doctor)")
        try await laptop.dm("/sessions")
        try await laptop.waitForBotMessage(in: alice, containing: "The federation's database is unreachable since")
        try await laptop.dm("/use api")
        try await laptop.dm("still here?")
        try await laptop.waitForBotMessage(in: alice, containing: "Echo: still here?")

        // It comes back, and so does the federation.
        try await database.startServer()
        try await waitForFederation(laptop, "the database answering again", timeout: 30) {
            $0["unreachableSince"] == nil && $0["machines"]?.arrayValue?.contains { $0["name"] == "desktop" } == true
        }
    }

    /// One Telegram chat on the laptop's bot drives a session on the desktop, and one on the
    /// desktop's bot a session on the laptop: `/use desktop web`
    /// picks it, prompts reach the desktop's pi only, and the answer comes back into the chat
    /// through the database; `/use api` comes home, `/to desktop/web …` goes once. While the
    /// database is away, a prompt for the desktop is refused with the reason and run nowhere, and
    /// `/use api` takes the chat back here. With the desktop gone, the chat is told it did not
    /// answer, and the request is withdrawn. No row carries the
    /// bot token. The desktop's own bot lets only bob in: alice's requests pass its second look
    /// because the laptop published her, and a request written into the database for a user no
    /// machine lets in is refused there.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 6)))
    func aChatOnOneMachineDrivesASessionOnAnother() async throws {
        try await Self.withLaptopAndDesktop { database, laptop, desktop in
            try await Self.forwarding(database: database, laptop: laptop, desktop: desktop)
        }
    }

    static func forwarding(database: PostgresServer, laptop: TelegramStack, desktop: TelegramStack) async throws {
        // The desktop's pi compacts for 30 s: well past the 12 s the laptop waits for an answer
        // (6 s to be taken, 6 s more to be answered; at 12 s the two raced, and the answer won on
        // a loaded machine), and past the next request's 12 s too.
        let daemons = try await startMachines(
            database: database, laptop: laptop, desktop: desktop, desktopAllows: [TelegramStack.bob.id],
            desktopEnvironment: ["FAKE_PI_COMPACT_MS": "30000"])
        try await waitForFederation(laptop, "the desktop's web session") { report in
            report["machines"]?.arrayValue?.contains { $0["name"] == "desktop" && $0["sessions"]?.arrayValue?.first?["name"] == "web" } == true
        }

        // Every request and post the machines send each other, kept as it was sent (answered
        // requests and passed posts are removed from their tables): none may carry the token.
        try await database.sql(
            """
            CREATE TABLE sent_between (body text);
            CREATE FUNCTION keep_sent() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN INSERT INTO sent_between VALUES (NEW.body::text); RETURN NEW; END $$;
            CREATE TRIGGER keep_requests AFTER INSERT ON relay_requests FOR EACH ROW EXECUTE FUNCTION keep_sent();
            CREATE TRIGGER keep_posts AFTER INSERT ON relay_outbound FOR EACH ROW EXECUTE FUNCTION keep_sent();
            """)

        // Picked from the laptop's chat, the desktop's session gets the prompt and answers there.
        try await laptop.dm("/use desktop web")
        try await laptop.waitForBotMessage(in: alice, containing: "Watching web")
        try await laptop.dm("hello desktop")
        try await laptop.waitForBotMessage(in: alice, containing: "Echo: hello desktop")
        #expect(desktop.piPrompts(containing: "hello desktop").count == 1 && laptop.piPrompts(containing: "hello desktop").isEmpty)

        // The other way: bob, in a chat on the desktop's own bot, drives the laptop's session.
        let bob = TelegramStack.bob
        try await desktop.dm("/use laptop api", from: bob)
        try await desktop.waitForBotMessage(in: bob.id, containing: "Watching api")
        try await desktop.dm("greetings from the desktop", from: bob)
        try await desktop.waitForBotMessage(in: bob.id, containing: "Echo: greetings from the desktop")
        #expect(laptop.piPrompts(containing: "greetings from the desktop").count == 1)
        #expect(desktop.piPrompts(containing: "greetings from the desktop").isEmpty)

        // Whoever can write the database can write a request; the desktop still looks at its user.
        let forged: JSONValue = [
            "machine": "laptop", "messenger": "telegram", "limits": [:], "method": "chat.message",
            "params": [
                "chat": ["messenger": "telegram", "channel": .string(alice), "user": "666000666", "dm": true], "text": "forged prompt",
                "messageId": "forged-1",
            ],
        ]
        func refusal(of request: JSONValue) async throws -> String {
            let row = try #require(
                try await database.sql(
                    "INSERT INTO relay_requests (to_machine, body) VALUES ('desktop', '\(request.serialized())'::jsonb) RETURNING id"
                )
                .first)
            var refusal = ""
            for _ in 0..<60 where refusal.isEmpty {
                refusal = try await database.sql("SELECT coalesce(error, '') FROM relay_requests WHERE id = \(row)").first ?? ""
                if refusal.isEmpty { try await Task.sleep(for: .milliseconds(250)) }
            }
            return refusal
        }
        let refused = try await refusal(of: forged)
        #expect(refused.contains("666000666 of telegram may not use the sessions of desktop"), "\(refused)")
        #expect(desktop.piPrompts(containing: "forged prompt").isEmpty)
        // Nor does it read a file a request names: files cross as their content only.
        var naming = forged
        naming["params"]?["chat"]?["user"] = .string(alice)
        naming["params"]?["messageId"] = "forged-2"
        naming["params"]?["attachments"] = [["path": "/etc/passwd", "filename": "passwd"]]
        let pathRefused = try await refusal(of: naming)
        #expect(pathRefused.contains("files cross machines as their content"), "\(pathRefused)")
        // A file named without its content is refused too: there is nothing here to read.
        naming["params"]?["messageId"] = "forged-3"
        naming["params"]?["attachments"] = [["filename": "notes.txt", "size": 12]]
        let unprepared = try await refusal(of: naming)
        #expect(unprepared.contains("files cross machines as their content"), "\(unprepared)")
        #expect(desktop.piPrompts(containing: "forged prompt").isEmpty)

        // The desktop's question comes with its buttons; the press is answered on the desktop,
        // and the card says who answered.
        try await laptop.dm("!scenario ui confirm")
        // The card, not the live view, whose tool line can name the question's title first.
        let asked = try await laptop.waitForCard(in: alice, containing: "Apply the migration?")
        _ = try await laptop.press("Yes", on: asked)
        try await laptop.waitForBotMessage(in: alice, containing: "confirm answer: true")
        // The card closes after the chat's questions and finals (QuestionClosings).
        try await waitUntil("the card says who answered") {
            let card = try await laptop.fake.get("/message?chat_id=\(alice)&message_id=\(asked["message_id"]?.intValue ?? 0)")["message"]
            return card?["text"]?.stringValue?.contains("answered: yes") == true
        }

        // A picture for the desktop's session is fetched here, where the chat is (Telegram's
        // file link holds the bot token), and crosses as the prompt's image.
        let png = Data(E2ESamples.png).base64EncodedString()
        try await laptop.dm("what is on this?", extra: ["photo": ["content_b64": .string(png), "width": 64, "height": 48]])
        try await laptop.waitForBotMessage(in: alice, containing: "Echo: what is on this?")
        let pictured = try #require(desktop.piPrompts(containing: "what is on this?").first)
        let images = pictured["images"]?.arrayValue ?? []
        #expect(images.count == 1 && images.first?["data"]?.stringValue == png, "the picture did not reach the desktop's pi as it was")
        #expect(laptop.piPrompts(containing: "what is on this?").isEmpty)

        // Home again, and a one-off prompt to the desktop.
        try await laptop.dm("/use api")
        try await laptop.waitForBotMessage(in: alice, containing: "Watching api")
        try await laptop.dm("hello laptop")
        try await laptop.waitForBotMessage(in: alice, containing: "Echo: hello laptop")
        #expect(laptop.piPrompts(containing: "hello laptop").count == 1 && desktop.piPrompts(containing: "hello laptop").isEmpty)
        try await laptop.dm("/to desktop/web once more")
        try await laptop.waitForBotMessage(in: alice, containing: "Echo: once more")
        #expect(desktop.piPrompts(containing: "once more").count == 1 && laptop.piPrompts(containing: "once more").isEmpty)

        // The laptop's federation plugin killed while its forwarded request waits to be taken (the
        // desktop's plugin frozen meanwhile): the request may run there, so the restarted plugin
        // is not sent it again, which would run it twice; the chat hears it may have run.
        let courier = try #require(try await daemons["desktop"]!.plugins()["federation"]?.pid)
        kill(courier, SIGSTOP)
        try await laptop.dm("/to desktop/web just once")
        try await waitUntil("the forwarded request's row") {
            try await database.sql("SELECT count(*) FROM relay_requests WHERE body::text LIKE '%just once%'").first == "1"
        }
        let carrier = try #require(try await daemons["laptop"]!.plugins()["federation"]?.pid)
        kill(carrier, SIGKILL)
        try await daemons["laptop"]!.waitForPlugin("federation", "restarted") { $0.pid != nil && $0.pid != carrier && $0.state == "running" }
        kill(courier, SIGCONT)
        try await laptop.waitForBotMessage(in: alice, containing: "may have run")
        try await laptop.waitForBotMessage(in: alice, containing: "Echo: just once")
        try await Task.sleep(for: .seconds(2))
        #expect(desktop.piPrompts(containing: "just once").count == 1, "run once on the desktop")

        // The bot token is in no table (answered requests and passed posts are removed; the
        // machines' rows hold their sessions).
        let rows = try await database.dump()
        #expect(rows.contains("relay_machines") && rows.contains("\"web\""), "the dump reads the tables: \(rows.prefix(2000))")
        let sent = try await database.sql("SELECT body FROM sent_between")
        #expect(sent.contains { $0.contains("\"prepared\"") }, "the picture's request was kept")
        #expect(!sent.contains { $0.contains(laptop.home.path) }, "a path on the laptop (its messenger's spool) was sent to the desktop")
        #expect(!rows.contains(TelegramStack.token) && !rows.contains(String(TelegramStack.token.suffix(16))))

        // `/use 2`: the desktop's web is second in `/sessions` (after the laptop's api).
        try await laptop.dm("/sessions")
        try await laptop.waitForBotMessage(in: alice, containing: "2. web")
        try await laptop.dm("/use 2")
        try await laptop.waitForBotMessage(in: alice, containing: "Watching web", count: 2)
        try await laptop.dm("after /use 2")
        try await laptop.waitForBotMessage(in: alice, containing: "Echo: after /use 2")
        #expect(desktop.piPrompts(containing: "after /use 2").count == 1)

        // A file the desktop's session sends to the laptop's chat: its name crosses, never where
        // it is on the desktop, and the desktop's spool keeps no copy once the post is carried.
        try "ship it\n".write(toFile: desktop.home.root + "/web/notes.txt", atomically: true, encoding: .utf8)
        try await laptop.dm("/file notes.txt")
        try await laptop.waitForBotMessage(in: alice, containing: "stay on the other machine: notes.txt")
        let desktopSpool = desktop.home.path + "/state/spool"
        let carried = try await database.sql("SELECT body FROM sent_between WHERE body LIKE '%notes.txt%'")
        #expect(!carried.isEmpty && !carried.contains { $0.contains(desktopSpool) }, "the desktop's spool path crossed: \(carried)")
        let spooled = (try? FileManager.default.contentsOfDirectory(atPath: desktopSpool)) ?? []
        #expect(!spooled.contains { $0.contains("notes") }, "the desktop's spool copy stayed: \(spooled)")

        // A slow request (a compaction) does not keep another chat's untaken on the desktop until
        // its sender withdraws it: each chat's requests are handled side by side. The slow one's
        // sender stops waiting first, and says it may have run.
        _ = try await desktop.json("new", "--cwd", desktop.home.root + "/web", "--name", "web2")
        try await laptop.dm("/compact")
        try await Task.sleep(for: .seconds(1))
        let group = "-1001112223334"
        try await laptop.say("/to desktop/web2 from the group", in: group)
        try await laptop.waitForBotMessage(in: group, containing: "Sent to web2 (prompted)", timeout: 20)
        #expect(desktop.piPrompts(containing: "from the group").count == 1)
        try await laptop.waitForBotMessage(in: alice, containing: "it may have acted on it")
        // The chat's next request waits behind the compaction on the desktop: at the take limit
        // it is answered "not run" while the laptop still waits, not after it gave up (which
        // would read "may have acted"), and it never runs.
        try await laptop.dm("while it compacts")
        try await laptop.waitForBotMessage(in: alice, containing: "not run: an earlier request of the same chat was still running there")
        // It did run: the session file gets its compaction. Until then the chat's next request
        // to the desktop would wait behind it in the chat's lane.
        try await waitUntil("the desktop's compaction ends", timeout: .seconds(60)) {
            Self.sessionFiles(under: desktop.agentDir).contains { $0.contains("\"type\":\"compaction\"") }
        }
        #expect(desktop.piPrompts(containing: "while it compacts").isEmpty)

        // The database goes away: what the desktop's session says meanwhile waits (its post is
        // not taken from the desktop's outbox), and comes when the database is back.
        try await database.stop(immediately: true)
        let emitted = try await desktop.cli(["emit", "web", "said while the database was away"])
        #expect(emitted.status == 0, "\(emitted)")
        try await Task.sleep(for: .seconds(2))
        #expect(try await laptop.botMessages(alice).allSatisfy { !($0["text"]?.stringValue ?? "").contains("said while the database was away") })
        // Meanwhile a prompt for the desktop's session is refused with the reason, and no session
        // here runs it instead: the laptop's own is in another folder.
        try await waitForFederation(laptop, "the database unreachable") { $0["unreachableSince"]?.stringValue != nil }
        try await laptop.dm("meant for the desktop")
        try await laptop.waitForBotMessage(in: alice, containing: "Machine desktop cannot be reached: the federation's database is unreachable")
        #expect(laptop.piPrompts(containing: "meant for the desktop").isEmpty, "the laptop's own session ran it")
        #expect(desktop.piPrompts(containing: "meant for the desktop").isEmpty)
        // `/use` of a session here takes the chat back meanwhile.
        try await laptop.dm("/use api")
        try await laptop.waitForBotMessage(in: alice, containing: "Watching api", count: 2)
        try await laptop.dm("here while it is away")
        try await laptop.waitForBotMessage(in: alice, containing: "Echo: here while it is away")
        try await database.startServer()
        try await laptop.waitForBotMessage(in: alice, containing: "said while the database was away")
        // The post can come before the laptop's next round has seen the database again; until
        // then its chats route as usual, here.
        try await waitForFederation(laptop, "the database answering again") { $0["unreachableSince"] == nil }
        try await laptop.dm("/use desktop web")
        try await laptop.waitForBotMessage(in: alice, containing: "Watching web", count: 3)

        // The desktop stops: the chat hears it did not answer, and its pi never gets the prompt.
        _ = await daemons["desktop"]!.terminate()
        try await laptop.dm("anyone there?")
        try await laptop.waitForBotMessage(in: alice, containing: "Machine desktop did not answer")
        #expect(desktop.piPrompts(containing: "anyone there?").isEmpty)
    }

    /// The text of every pi session file (`*.jsonl`) under an agent folder.
    static func sessionFiles(under agentDir: String) -> [String] {
        let folder = agentDir + "/sessions"
        let names = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return names.filter { $0.hasSuffix(".jsonl") }.compactMap { try? String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }
    }

    /// Polls `status --json` until its `federation` object satisfies `condition`; returns it.
    @discardableResult
    static func waitForFederation(
        _ stack: TelegramStack, _ what: String, timeout: Double = 30, _ condition: (JSONValue) -> Bool
    ) async throws -> JSONValue {
        let deadline = Date().addingTimeInterval(timeout)
        var last: JSONValue = .null
        while Date() < deadline {
            last = try await stack.json("status")["federation"] ?? .null
            if condition(last) { return last }
            try await Task.sleep(for: .milliseconds(500))
        }
        throw StackFailure("waited \(Int(timeout)) s for \(what); federation: \(last)\n\(stack.home.pluginLog("federation").suffix(3000))")
    }
}
