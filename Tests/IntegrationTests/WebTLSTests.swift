import Foundation
import PiRelaySDK
import Testing

/// HTTPS for the dashboard, with a certificate made by the test; and an address other machines
/// could reach refused without TLS, the plugin stopped as not configured with the reason.
@Suite struct WebTLSTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func theDashboardServesHTTPSWithItsCertificateAndTheSecureCookie() async throws {
        try await SessionHome.with { sessions in
            let port = try LoopbackHTTP.freePort()
            let folder = sessions.home.scratch
            try await Self.makeCertificate(in: folder, sessions)
            try sessions.home.linkBuiltPlugin("pi-relay-web", as: "web")
            let config = SessionConfig().yaml(piLog: sessions.piLog, agentDir: sessions.agentDir)
            try sessions.home.writeConfig(
                config + "web:\n  listen: 127.0.0.1:\(port)\n  tls:\n    certificate: \(folder)/cert.pem\n    key: \(folder)/key.pem\n")
            let daemon = try await sessions.start()
            try await daemon.waitForRunning("web", timeout: .seconds(60))
            let secure = WebClient(base: "https://127.0.0.1:\(port)", trusted: folder + "/cert.pem")
            try await waitUntil("the dashboard answers over HTTPS") { (try? await secure.get("/assets/style.css").status) == 200 }
            #expect(try await secure.get("/").status == 401)

            let result = try await sessions.run("pair", "web", "--json")
            let link = try #require(try JSONValue.parse(String(result.stdout.split(separator: "\n").last ?? ""))["link"]?.stringValue, "\(result)")
            #expect(link.hasPrefix("https://127.0.0.1:\(port)/pair/"), "\(link)")
            let signedIn = try await secure.post(String(link.dropFirst(secure.base.count)), [:])
            let cookie = signedIn[header: "set-cookie"] ?? ""
            #expect(signedIn.status == 303 && cookie.hasPrefix("__Host-pirelay=") && cookie.contains("Secure"), "\(cookie)")
            // The Origin a browser sends is https://…
            let browser = WebClient(base: secure.base, cookie: String(cookie.split(separator: ";")[0]), trusted: secure.trusted)
            #expect(try await browser.post("/signout", [:], origin: "http://127.0.0.1:\(port)").status == 403)
            #expect(try await browser.post("/signout", [:]).status == 303)

            // Plain HTTP gets no page, and a client that does not trust the certificate none either.
            await #expect(throws: (any Error).self) { try await WebClient(base: "http://127.0.0.1:\(port)").get("/") }
            await #expect(throws: (any Error).self) { try await WebClient(base: secure.base).get("/") }
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func anAddressOthersCanReachWithoutTLSIsRefused() async throws {
        try await SessionHome.with { sessions in
            try sessions.home.linkBuiltPlugin("pi-relay-web", as: "web")
            let config = SessionConfig().yaml(piLog: sessions.piLog, agentDir: sessions.agentDir)
            try sessions.home.writeConfig(config + "web:\n  listen: 0.0.0.0:7780\n  hosts: [dash.example.net]\n")
            let daemon = try await sessions.start()
            let info = try await daemon.waitForPlugin("web", "is not configured", timeout: .seconds(30)) { $0.state == "not-configured" }
            #expect(info.reason.contains("web.tls"), "\(info)")
        }
    }

    static func makeCertificate(in folder: String, _ sessions: SessionHome) async throws {
        let process = try SpawnedProcess(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
                "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem",
            ], environment: ProcessInfo.processInfo.environment, stdoutPath: folder + "/openssl.out", stderrPath: folder + "/openssl.err")
        #expect(await process.wait(timeout: .seconds(60)) == .exited(0))
    }
}
