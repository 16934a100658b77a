import Foundation
import PiRelaySDK
import Testing

/// The web dashboard through everything real: the daemon, the formatter, the web plugin on a
/// loopback port and the fake pi; the test is the browser (libcurl for pages and POSTs, a
/// WebSocket client for the live page).
@Suite struct WebDashboardTests {
    /// Signed out, every page says how to sign in and the API refuses; a wrong link is refused,
    /// the right one signs in once and moves the code out of the address; a foreign Host or
    /// Origin is refused; every answer carries the CSP.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func pairingCookiesAndTheRequestChecks() async throws {
        try await WebHome.with { web in
            let anonymous = web.client()
            let page = try await anonymous.get("/")
            #expect(page.status == 401 && page.text.contains("pi-relayd pair web"), "\(page.status) \(page.text)")
            let policy = page[header: "content-security-policy"] ?? ""
            #expect(
                policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'") && !policy.contains("unsafe-inline"), "\(policy)")
            #expect(page[header: "x-content-type-options"] == "nosniff")
            #expect(try await anonymous.get("/api/approvals").status == 401)
            #expect(try await anonymous.get("/", headers: ["Host: evil.example"]).status == 421)
            #expect(try await anonymous.get("/", headers: ["Host: localhost:9999"]).status == 401, "ssh -L on another port works")
            #expect(try await anonymous.post("/pair/WRONGCODE2", [:]).status == 403)

            let started = ContinuousClock.now
            let link = try await web.pairingLink()
            #expect(ContinuousClock.now - started < .seconds(20), "pair web returns at once")
            #expect(link.hasPrefix(web.base + "/pair/"), "\(link)")
            let path = String(link.dropFirst(web.base.count))
            // Opening the link (a GET, as a link preview does) shows a button and spends nothing.
            let form = try await anonymous.get(path)
            #expect(form.status == 200 && form.text.contains("method=\"post\"") && form[header: "set-cookie"] == nil, "\(form.text)")
            #expect(try await anonymous.post(path, [:], origin: "http://evil.example").status == 403)
            let signedIn = try await anonymous.post(path, [:])
            #expect(signedIn.status == 303 && signedIn[header: "location"] == "/", "\(signedIn.status) \(signedIn.headers)")
            let setCookie = signedIn[header: "set-cookie"] ?? ""
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Max-Age=2592000"), "\(setCookie)")
            #expect(try await anonymous.post(path, [:]).status == 403, "the link works once")
            let cookie = try #require(setCookie.split(separator: ";").first.map(String.init))
            let browser = web.client(cookie: cookie)
            let shell = try await browser.get("/")
            #expect(shell.status == 200 && shell.text.contains("/assets/app.js") && !shell.text.contains("<script>"), "\(shell.text)")
            #expect(try await browser.get("/assets/app.js")[header: "content-type"]?.hasPrefix("text/javascript") == true)

            // A POST from another site, or with no Origin at all, never reaches pi-relayd.
            let id = try await web.sessions.new(name: "web")
            #expect(try await browser.post("/api/sessions/\(id)/prompt", ["text": "x", "id": "a"], origin: .some(nil)).status == 403)
            #expect(try await browser.post("/api/sessions/\(id)/prompt", ["text": "x", "id": "a"], origin: "http://evil.example").status == 403)
            #expect(try await browser.post("/api/sessions/\(id)/prompt", ["text": "x", "id": "a"], origin: "http://127.0.0.1:1").status == 403)
            #expect(web.sessions.piInput("prompt").isEmpty)
            // A body that is not HTTP (a chunk whose size is not hex) is a bad request, and the
            // connection closes: no prompt, no server error.
            let broken = try LoopbackHTTP.request(
                port: web.port,
                "POST /api/sessions/\(id)/prompt HTTP/1.1\r\nHost: 127.0.0.1:\(web.port)\r\nOrigin: \(web.base)\r\nCookie: \(cookie)\r\n"
                    + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
            #expect(broken.status == 400 && broken.head.lowercased().contains("connection: close"), "\(broken.head)")
            #expect(web.sessions.piInput("prompt").isEmpty)
            #expect(try await browser.post("/signout", [:]).status == 303)
            #expect(try await browser.get("/api/approvals").status == 401, "signed out")

            // Ten wrong links a minute, then none are even checked.
            for n in 0..<10 { _ = try await anonymous.post("/pair/WRONGCODE\(n)", [:]) }
            let limited = try await anonymous.post("/pair/WRONGCODEX", [:])
            #expect(limited.status == 429 && limited[header: "retry-after"] != nil, "\(limited.status)")
        }
    }

    /// A prompt the dashboard's journal could not keep (the disk is full) is accepted only once
    /// pi-relayd has it: accepted before, a plugin killed meanwhile would lose it, and the page,
    /// told it was taken, would not send it again. Here it waits behind a compaction.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aPromptTheJournalCouldNotKeepIsAcceptedOnceHandedOver() async throws {
        try await WebHome.with(piEnv: ["FAKE_PI_COMPACT_MS": "4000"]) { web in
            let (cookie, _) = try await web.signIn()
            let browser = web.client(cookie: cookie)
            let id = try await web.sessions.new(name: "full")
            let pid = try #require(try await SecurityFileModeTests.runningPID(web.home, "web"))
            try BoundFileSizeLimit.set(pid, bytes: 1)
            defer { try? BoundFileSizeLimit.set(pid, bytes: nil) }
            async let compacted = browser.post("/api/sessions/\(id)/command", ["name": "compact", "args": [:]])
            try await waitUntil("pi compacts") { !web.sessions.piInput("compact").isEmpty }
            let text = "kept while the disk is full"
            let sent = try await browser.post("/api/sessions/\(id)/prompt", ["text": .string(text), "id": "p-full"])
            #expect(sent.status == 200 && sent.json["status"] == "accepted", "\(sent.status) \(sent.text)")
            #expect(web.sessions.piInput("prompt").contains { $0["message"]?.stringValue == text }, "accepted before pi-relayd had it")
            _ = try await compacted
        }
    }

    /// A prompt from the page reaches pi as the web user, the answer comes back on the page's
    /// WebSocket escaped (model text holding markup stays text), a question is answered from
    /// the page and closes saying who answered, and a revoked user's cookie stops working.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aPromptItsAnswerAQuestionAndRevocation() async throws {
        try await WebHome.with { web in
            let (cookie, user) = try await web.signIn()
            let browser = web.client(cookie: cookie)
            let id = try await web.sessions.new(name: "dash")
            let page = WebPage(base: web.base, cookie: cookie)
            defer { page.close() }
            try await page.wait("the sessions list") {
                $0["type"] == "sessions" && ($0["sessions"]?.arrayValue ?? []).contains { $0["id"]?.stringValue == id }
            }
            // A line that is not JSON, and one of an unknown type, are skipped; the socket stays.
            page.send(text: Array("not json".utf8))
            page.send(["type": "dance"])
            page.send(["type": "watch", "session": .string(id)])
            try await Task.sleep(for: .milliseconds(300))

            let text = "hello <img src=x onerror=alert(1)> from the browser"
            let sent = try await browser.post("/api/sessions/\(id)/prompt", ["text": .string(text), "id": "p1"])
            #expect(sent.status == 200 && sent.json["status"] == "accepted", "\(sent.status) \(sent.text)")
            let final = try await page.wait("the final answer") { $0["type"] == "item" && $0["item"]?["kind"] == "final" }
            let html = final["item"]?["html"]?.stringValue ?? ""
            #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;") && !html.contains("<img"), "\(html)")
            #expect(web.sessions.piInput("prompt").contains { $0["message"]?.stringValue == text })
            // The same send again (the browser retried) is one prompt.
            _ = try await browser.post("/api/sessions/\(id)/prompt", ["text": .string(text), "id": "p1"])
            try await Task.sleep(for: .seconds(1))
            #expect(web.sessions.piInput("prompt").count == 1)

            _ = try await browser.post("/api/sessions/\(id)/prompt", ["text": "!scenario ui confirm 0", "id": "p2"])
            let asked = try await page.wait("the question") { $0["type"] == "item" && $0["item"]?["question"] != nil }
            let question = try #require(asked["item"]?["question"])
            #expect(question["method"] == "confirm", "\(question)")
            let qid = try #require(question["id"]?.stringValue)
            // A button's action naming no question answers none (an empty id matched the first open one).
            let blank = try await browser.post("/api/sessions/\(id)/command", ["name": "action", "args": ["id": .string("qa:\(id)::false")]])
            #expect(blank.text.contains("already answered or expired"), "\(blank.status) \(blank.text)")
            let answered = try await browser.post("/api/sessions/\(id)/answer", ["questionId": .string(qid), "confirmed": true])
            #expect(answered.status == 200, "\(answered.text)")
            let closed = try await page.wait("the closed question") { $0["type"] == "closed" && $0["questionId"]?.stringValue == qid }
            #expect(closed["text"]?.stringValue?.contains("(web)") == true, "\(closed)")
            try await web.sessions.waitForState(id, "idle")
            #expect(try await web.sessions.last(id)?.contains("confirm answer: true") == true)

            // A restarted plugin still shows what it had acknowledged: pi-relayd sends it once.
            let restarted = try await web.sessions.run("plugins", "restart", "web")
            #expect(restarted.status == 0, "\(restarted)")
            try await waitUntil("the dashboard answers again") { (try? await browser.get("/api/approvals").status) == 200 }
            let again = WebPage(base: web.base, cookie: cookie)
            defer { again.close() }
            try await again.wait("the sessions list") { $0["type"] == "sessions" }
            again.send(["type": "watch", "session": .string(id)])
            try await again.wait("the earlier answer") { $0["type"] == "item" && $0["item"]?["html"]?.stringValue == html }

            let revoked = try await web.sessions.run("users", "revoke", user)
            #expect(revoked.status == 0, "\(revoked)")
            try await waitUntil("the revoked cookie is refused") { try await browser.get("/api/approvals").status == 401 }
            // The page still open is closed too: it gets nothing more of the session.
            try await waitUntil("the revoked user's open page is closed", timeout: .seconds(10)) { again.ended != nil }
        }
    }

    /// The WebSocket upgrade checks the Origin and the cookie like a POST, and an open socket
    /// ends with its sign-in.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func aCrossOriginOrSignedOutWebSocketIsRefused() async throws {
        try await WebHome.with { web in
            let (cookie, _) = try await web.signIn()
            let foreign = WebPage(base: web.base, cookie: cookie, origin: "http://evil.example")
            let anonymous = WebPage(base: web.base, cookie: nil)
            let good = WebPage(base: web.base, cookie: cookie)
            defer { for page in [foreign, anonymous, good] { page.close() } }
            try await good.wait("the sessions list") { $0["type"] == "sessions" }
            try await waitUntil("both refused pages ended") { foreign.ended != nil && anonymous.ended != nil }
            #expect(
                foreign.messages.isEmpty && anonymous.messages.isEmpty, "\(String(describing: foreign.ended)) \(String(describing: anonymous.ended))")
            // Signing out closes the pages that sign-in has open, also one whose client never
            // answers the close (this one does not): the plugin lets go of it, where it went on
            // reading its messages and showing it the session.
            let signedOut = try await web.client(cookie: cookie).post("/signout", [:])
            #expect(signedOut.status == 303, "\(signedOut.status) \(signedOut.text)")
            try await waitUntil("the signed-out page is closed", timeout: .seconds(10)) { good.ended != nil }
            try await waitUntil("the plugin let go of the page", timeout: .seconds(10)) {
                (try? await web.sessions.json("plugin", "call", "web", "status"))?["pages"]?.intValue == 0
            }
        }
    }

    /// A signed-in socket may watch only sessions pi-relayd has: each watched id kept a page in
    /// the plugin's memory for good, so made-up ids (or long ones) grew it without end.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func aPageWatchesOnlySessionsThatExist() async throws {
        try await WebHome.with { web in
            let id = try await web.sessions.new(name: "real", cwd: web.sessions.project)
            let (cookie, _) = try await web.signIn()
            let page = WebPage(base: web.base, cookie: cookie)
            defer { page.close() }
            try await page.wait("the sessions list") { $0["type"] == "sessions" }
            for n in 0..<20 { page.send(["type": "watch", "session": .string("made-up-\(n)")]) }
            page.send(["type": "watch", "session": .string(String(repeating: "x", count: 5_000))])
            page.send(["type": "watch", "session": .string(id)])
            try await waitUntil("the real session's page is held") {
                (try? await web.sessions.json("plugin", "call", "web", "status"))?["sessionPages"]?.intValue == 1
            }
            try await Task.sleep(for: .milliseconds(300))
            let status = try await web.sessions.json("plugin", "call", "web", "status")
            #expect(status["sessionPages"] == 1, "\(status)")
        }
    }

    /// `/relay pair` in a terminal pi (the control method `pair.session`) with the dashboard as
    /// the messenger answers its sign-in link, which lives 5 minutes as `pi-relayd pair web`'s
    /// does, not the 10 of a code typed in a chat.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func aTerminalsPairingLinkLivesFiveMinutes() async throws {
        try await WebHome.with { web in
            let id = try await web.sessions.new(name: "term", cwd: web.sessions.project)
            let request = #"{"id":"1","method":"pair.session","params":{"sessionID":"\#(id)","messenger":"web"}}"#
            let answer = try await web.shell(
                "python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); "
                    + "s.sendall(sys.argv[2].encode()+b\"\\n\"); print(s.makefile().readline())' "
                    + "'\(web.home.socketPath)' '\(request)'", in: web.home.scratch)
            let result = try #require(try JSONValue.parse(answer)["result"], "\(answer)")
            let link = try #require(result["link"]?.stringValue, "\(result)")
            #expect(link.hasPrefix(web.base + "/pair/"), "\(result)")
            let lifetime = try #require(result["expiresInSeconds"]?.intValue, "\(result)")
            #expect(lifetime <= 300 && lifetime > 290, "\(result)")
        }
    }
}

/// The page's controls are chat commands as the web user: a new session only under
/// `web.roots`, rename, thinking level, a new conversation, and a prompt with an image.
@Suite struct WebControlTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func newSessionRenameThinkingResetAndAnImage() async throws {
        try await WebHome.with { web in
            let (cookie, _) = try await web.signIn()
            let browser = web.client(cookie: cookie)
            let project = web.sessions.project

            let refused = try await browser.post("/api/new", ["cwd": "/etc", "name": "etc"])
            #expect(refused.status == 403 && refused.json["error"]?.stringValue?.contains("web.roots") == true, "\(refused.text)")
            let escaped = try await browser.post("/api/new", ["cwd": .string(project + "/../../../../etc")])
            #expect(escaped.status == 403, "\(escaped.text)")
            // Every API error is JSON with its reason, which the page shows: not a folder given,
            // a session that does not exist.
            let noFolder = try await browser.post("/api/new", ["cwd": ""])
            #expect(noFolder.status == 400 && noFolder.json["error"] == "no folder", "\(noFolder.text)")
            let noSession = try await browser.get("/api/sessions/nosuch/diff")
            #expect(noSession.status == 404 && noSession.json["error"] == "no such session", "\(noSession.text)")
            let started = try await browser.post("/api/new", ["cwd": .string(project), "name": "fresh"])
            #expect(started.status == 200 && started.json["text"]?.stringValue?.contains("fresh") == true, "\(started.text)")
            let id = try await waitFor("the new session") { try await web.sessions.sessions().first { $0["name"] == "fresh" }?["id"]?.stringValue }
            try await web.sessions.waitForState(id, "idle")

            // Typed in the prompt box or sent as a control, /new goes around web.roots and /use
            // or /disconnect would move the page's chat off its session: refused, nothing started.
            let before = try await web.sessions.sessions().count
            // pi-relayd skips spaces after the slash, so `/ new` is /new to it: to the page too.
            for text in ["/new /etc etc", "  /NEW /etc", "/use 1", "/disconnect", "/ new /etc etc", "/  NEW /etc", "/ use 1", "/ disconnect"] {
                let typed = try await browser.post("/api/sessions/\(id)/prompt", ["text": .string(text), "id": .string("typed-" + text)])
                #expect(typed.status == 403 && typed.json["error"]?.stringValue?.contains("one session") == true, "\(text): \(typed.text)")
            }
            for (name, args) in [
                ("new", ["cwd": "/etc"]), ("use", ["name": "1"]), ("action", ["id": "use:\(id)"]), ("action", ["id": "disconnect"]),
                // pi-relayd reads a button's action by the part before its first colon.
                ("action", ["id": "disconnect:x"]), ("action", ["id": "use:\(id):x"]),
            ] {
                let control = try await browser.post(
                    "/api/sessions/\(id)/command", ["name": .string(name), "args": .object(args.mapValues { .string($0) })])
                #expect(control.status == 403, "\(name) \(args): \(control.text)")
            }
            #expect(try await web.sessions.sessions().count == before)
            #expect(!web.sessions.piInput("prompt").contains { $0["message"]?.stringValue?.contains("/etc") == true })

            let renamed = try await browser.post("/api/sessions/\(id)/command", ["name": "rename", "args": ["name": "renamed"]])
            #expect(renamed.json["text"]?.stringValue == "Renamed fresh to renamed.", "\(renamed.text)")
            #expect(try await web.sessions.summary(id)?["name"] == "renamed")
            let thinking = try await browser.post("/api/sessions/\(id)/command", ["name": "thinking", "args": ["level": "high"]])
            #expect(thinking.json["text"]?.stringValue?.contains("now thinks at") == true, "\(thinking.text)")
            #expect(web.sessions.piInput("set_thinking_level").contains { $0["level"] == "high" })
            let reset = try await browser.post("/api/sessions/\(id)/command", ["name": "reset"])
            #expect(reset.json["text"]?.stringValue?.contains("new conversation") == true, "\(reset.text)")
            #expect(!web.sessions.piInput("new_session").isEmpty)

            // A 1×1 PNG with the prompt; a file that is not an image is refused.
            let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
            let notImage = try await browser.post(
                "/api/sessions/\(id)/prompt", ["text": "look", "id": "i0", "images": [["name": "x.txt", "type": "text/plain", "data": "eA=="]]])
            #expect(notImage.status == 400, "\(notImage.text)")
            let sent = try await browser.post(
                "/api/sessions/\(id)/prompt",
                ["text": "what is in it", "id": "i1", "images": [["name": "dot.png", "type": "image/png", "data": .string(png)]]])
            #expect(sent.status == 200, "\(sent.text)")
            let prompt = try await waitFor("the prompt with its image") {
                web.sessions.piInput("prompt").first { $0["message"]?.stringValue?.contains("what is in it") == true }
            }
            #expect(prompt["images"]?.arrayValue?.first?["mimeType"] == "image/png", "\(prompt)")

            // What a broken or hostile page sends is answered, and nothing reaches pi.
            let prompts = web.sessions.piInput("prompt").count
            let broken = try await browser.post("/api/sessions/\(id)/prompt", raw: Array("{\"text\": ".utf8))
            #expect(broken.status == 400 && broken.text.contains("JSON object"), "\(broken.status) \(broken.text)")
            let huge = try await browser.post("/api/sessions/\(id)/prompt", raw: Array(repeating: UInt8(ascii: " "), count: 9 << 20))
            #expect(huge.status == 413, "\(huge.status)")
            let unknown = try await browser.post("/api/sessions/nosuchsession/prompt", ["text": "hi", "id": "x1"])
            #expect(unknown.status == 502 && unknown.json["error"] != nil, "\(unknown.status) \(unknown.text)")
            try await Task.sleep(for: .milliseconds(500))
            #expect(web.sessions.piInput("prompt").count == prompts)
            // A folder that is no git repository has no diff, and says so.
            let noRepo = try await browser.get("/api/sessions/\(id)/diff")
            #expect(noRepo.status == 404 && noRepo.json["error"]?.stringValue?.contains("not in a git repository") == true, "\(noRepo.text)")
        }
    }

    /// Without `web.roots`, New session may start sessions where `/new` does: under
    /// `sessions.defaultCwd` (pi-relayd passes it in the welcome), and nowhere else.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func rootsDefaultToTheSessionsDefaultFolder() async throws {
        try await WebHome.with(defaultRoots: true) { web in
            let (cookie, _) = try await web.signIn()
            let browser = web.client(cookie: cookie)
            let outside = try await browser.post("/api/new", ["cwd": .string(web.home.scratch), "name": "outside"])
            #expect(outside.status == 403 && outside.json["error"]?.stringValue?.contains(web.sessions.project) == true, "\(outside.text)")
            let inside = try await browser.post("/api/new", ["cwd": .string(web.sessions.project), "name": "inside"])
            #expect(inside.status == 200, "\(inside.text)")
            _ = try await waitFor("the session under sessions.defaultCwd") { try await web.sessions.sessions().first { $0["name"] == "inside" } }
        }
    }
}
