import PiRelaySDK

/// What the pi extension says of the interactive pi it attaches (the `attach` request's params,
/// docs/EXTENSION.md): read and checked here, before any session is touched.
package struct TerminalRegistration: Sendable, Equatable {
    /// The oldest pi whose extension API the extension relies on (`session_start` after the
    /// terminal UI is up).
    package static let minimumPiVersion = "0.58.1"

    package var piSessionID: String
    package var sessionFile: String?
    package var cwd: String
    package var name: String?
    package var model: String?
    /// Whether the model reads pictures (its `input` names "image"); nil when the extension did
    /// not say. pi hands pictures to any model and the provider drops them without a word.
    package var modelTakesImages: Bool?
    package var thinkingLevel: String?
    package var pid: Int32
    package var piVersion: String?
    package var extensionVersion: String?
    /// The pi session this one replaces after `/new`, `/resume` or `/fork`.
    package var previousPiSessionID: String?

    package init(params: JSONValue) throws(RemoteError) {
        guard let piSessionID = params["piSessionID"]?.stringValue, !piSessionID.isEmpty else {
            throw RemoteError.invalidParams("attach needs piSessionID, pi's session id")
        }
        guard Self.hexDigits(piSessionID).count >= 8 else {
            throw RemoteError.invalidParams("attach: piSessionID \(piSessionID.prefix(64)) has too few hex digits to name a session")
        }
        guard let cwd = params["cwd"]?.stringValue, cwd.hasPrefix("/") else {
            throw RemoteError.invalidParams("attach needs cwd, an absolute path")
        }
        guard let pid = params["pid"]?.intValue, pid > 0, pid <= Int(Int32.max) else {
            throw RemoteError.invalidParams("attach needs pid, pi's process id")
        }
        self.piSessionID = piSessionID
        self.cwd = cwd
        self.pid = Int32(pid)
        sessionFile = params["sessionFile"]?.stringValue
        name = params["name"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        model = params["model"]?.stringValue
        modelTakesImages = Self.takesImages(params["modelInput"])
        thinkingLevel = params["thinkingLevel"]?.stringValue
        piVersion = params["piVersion"]?.stringValue
        extensionVersion = params["extensionVersion"]?.stringValue
        previousPiSessionID = params["previousPiSessionID"]?.stringValue
        if let piVersion, let older = Self.isOlder(piVersion, than: Self.minimumPiVersion), older {
            throw RemoteError(
                code: .other("unsupported"),
                message:
                    "pi \(piVersion) is too old for the pi-relayd extension: it needs pi \(Self.minimumPiVersion) or newer (npm install -g @mariozechner/pi-coding-agent)"
            )
        }
    }

    /// An `input` list (`["text", "image"]`) as the vision check reads it; nil when absent.
    package static func takesImages(_ input: JSONValue?) -> Bool? {
        input?.arrayValue.map { $0.contains(.string("image")) }
    }

    /// `t-` and the first 12 hex digits of pi's session id: the same pi session always gets the
    /// same daemon session, across reconnects and daemon restarts.
    package var sessionID: String { Self.sessionID(piSessionID: piSessionID) }

    package static func sessionID(piSessionID: String) -> String {
        "t-" + String(hexDigits(piSessionID).prefix(12))
    }

    private static func hexDigits(_ text: String) -> String {
        String(text.lowercased().filter { $0.isHexDigit })
    }

    /// Compares dotted versions numerically (`0.58.10` is newer than `0.58.9`); a pre-release
    /// suffix is ignored. Nil when `version` is not a version at all.
    package static func isOlder(_ version: String, than minimum: String) -> Bool? {
        func parts(_ text: String) -> [Int]? {
            let core = text.split(separator: "-", maxSplits: 1).first.map(String.init) ?? text
            let numbers = core.split(separator: ".").map { Int($0) }
            guard !numbers.isEmpty, numbers.allSatisfy({ $0 != nil }) else { return nil }
            return numbers.map { $0! }
        }
        guard let have = parts(version), let need = parts(minimum) else { return nil }
        for index in 0..<max(have.count, need.count) {
            let left = index < have.count ? have[index] : 0
            let right = index < need.count ? need[index] : 0
            if left != right { return left < right }
        }
        return false
    }
}
