import Foundation
import PiRelayHTTP
import PiRelaySDK

/// A real headless Chromium driven through W3C WebDriver (Debian's `chromium` and
/// `chromium-driver`, installed by `make deps`), spoken as JSON over the project's libcurl
/// client. Nothing is downloaded: the driver and the browser are the system's.
final class WebDriver: Sendable {
    static let chromium = "/usr/bin/chromium"
    static let driverPath = "/usr/bin/chromedriver"
    /// The W3C key of an element reference.
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    struct Failure: Error, CustomStringConvertible {
        let description: String
        /// The W3C error code ("stale element reference"), when the driver gave one.
        var code: String? = nil
    }

    let base: String
    let session: String
    private let driver: SpawnedProcess

    /// Starts chromedriver on a free port and opens a headless browser with a profile in `scratch`.
    static func start(scratch: String) async throws -> WebDriver {
        for path in [chromium, driverPath] where !FileManager.default.isExecutableFile(atPath: path) {
            throw Failure(description: "\(path) is missing: make deps installs chromium and chromium-driver")
        }
        let port = try LoopbackHTTP.freePort()
        let driver = try SpawnedProcess(
            driverPath, ["--port=\(port)"], environment: ProcessInfo.processInfo.environment, stdoutPath: scratch + "/chromedriver.log",
            stderrPath: scratch + "/chromedriver.err")
        let base = "http://127.0.0.1:\(port)"
        do {
            try await waitUntil("chromedriver answers", timeout: .seconds(30)) {
                (try? await Self.call(base, "GET", "/status"))?["ready"] == true
            }
            let profile = scratch + "/chromium-profile"
            let created = try await call(
                base, "POST", "/session",
                [
                    "capabilities": [
                        "alwaysMatch": [
                            "browserName": "chrome",
                            "goog:chromeOptions": [
                                "binary": .string(chromium),
                                "args": [
                                    "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900",
                                    .string("--user-data-dir=" + profile), "--no-first-run", "--disable-background-networking",
                                ],
                            ],
                        ]
                    ]
                ], timeout: .seconds(120))
            guard let session = created["sessionId"]?.stringValue else { throw Failure(description: "no WebDriver session: \(created)") }
            return WebDriver(base: base, session: session, driver: driver)
        } catch {
            driver.signalGroup(SIGKILL)
            _ = await driver.wait(timeout: .seconds(10))
            throw error
        }
    }

    private init(base: String, session: String, driver: SpawnedProcess) {
        self.base = base
        self.session = session
        self.driver = driver
    }

    /// Closes the browser and stops the driver.
    func quit() async {
        _ = try? await Self.call(base, "DELETE", "/session/\(session)")
        driver.signalGroup(SIGTERM)
        if await driver.wait(timeout: .seconds(10)) == nil {
            driver.signalGroup(SIGKILL)
            _ = await driver.wait(timeout: .seconds(10))
        }
    }

    // MARK: Commands

    func open(_ url: String) async throws { try await command("POST", "/url", ["url": .string(url)]) }

    var url: String { get async throws { try await command("GET", "/url").stringValue ?? "" } }

    /// The first element matching `css`, or nil.
    func find(_ css: String) async throws -> String? {
        let found = try await command("POST", "/elements", ["using": "css selector", "value": .string(css)])
        return found.arrayValue?.first?[Self.elementKey]?.stringValue
    }

    /// Waits for an element matching `css` and returns it.
    @discardableResult
    func wait(for css: String, timeout: Duration = .seconds(30)) async throws -> String {
        do {
            return try await waitFor("an element \(css)", timeout: timeout) { try await find(css) }
        } catch {
            let page = (try? await run("return location.href + '\\n' + document.documentElement.outerHTML.slice(0, 3000)"))?.stringValue ?? "?"
            throw Failure(description: "\(error)\nthe page: \(page)")
        }
    }

    func click(_ element: String) async throws { try await command("POST", "/element/\(element)/click", [:]) }

    /// Clicks the element matching `css` once there is one. A page that redraws (the sessions
    /// list, as its WebSocket brings a session's branch or activity) can replace the element
    /// between finding and clicking it: W3C WebDriver answers "stale element reference"
    /// (§12.4.1, §14.1), and the element is found again, as a user clicks what is on screen now.
    func click(css: String, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                return try await click(try await wait(for: css, timeout: timeout))
            } catch let failure as Failure where failure.code == "stale element reference" && ContinuousClock.now < deadline {
                continue
            }
        }
    }

    func type(_ text: String, into element: String) async throws {
        try await command("POST", "/element/\(element)/value", ["text": .string(text)])
    }

    func text(_ element: String) async throws -> String { try await command("GET", "/element/\(element)/text").stringValue ?? "" }

    /// Runs `script` in the page; what it returns.
    @discardableResult
    func run(_ script: String, _ arguments: [JSONValue] = []) async throws -> JSONValue {
        try await command("POST", "/execute/sync", ["script": .string(script), "args": .array(arguments)])
    }

    /// Runs `script`, whose last argument is the callback to call with the result.
    func runAsync(_ script: String) async throws -> JSONValue {
        try await command("POST", "/execute/async", ["script": .string(script), "args": []])
    }

    func deleteCookies() async throws { try await command("DELETE", "/cookie") }

    /// Sets the window's outer size (W3C WebDriver §11.8.2, Set Window Rect).
    func resize(width: Int, height: Int) async throws {
        try await command("POST", "/window/rect", ["width": JSONValue(width), "height": JSONValue(height)])
    }

    /// The page as PNG bytes.
    func screenshot() async throws -> Data {
        let encoded = try await command("GET", "/screenshot").stringValue ?? ""
        guard let data = Data(base64Encoded: encoded) else { throw Failure(description: "the screenshot was not base64") }
        return data
    }

    @discardableResult
    private func command(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> JSONValue {
        let answer = try await Self.call(base, method, "/session/\(session)" + path, body)
        return answer
    }

    /// One WebDriver request; its `value`, or the error it carried.
    private static func call(
        _ base: String, _ method: String, _ path: String, _ body: JSONValue? = nil, timeout: Duration = .seconds(60)
    ) async throws -> JSONValue {
        let request = HTTPRequest(
            method: method, url: SecretURL(base + path), body: body.map { .json($0.serializedBytes()) } ?? .none, timeout: timeout,
            proxy: .direct)
        let response = try await TransferLoop.shared.perform(request).get()
        let json = (try? JSONValue.parse(bytes: response.body)) ?? .null
        if response.status >= 400 || json["value"]?["error"] != nil {
            throw Failure(
                description:
                    "WebDriver \(method) \(path): \(response.status) \(json["value"]?["message"]?.stringValue ?? String(decoding: response.body.prefix(500), as: UTF8.self))",
                code: json["value"]?["error"]?.stringValue)
        }
        return json["value"] ?? .null
    }
}
