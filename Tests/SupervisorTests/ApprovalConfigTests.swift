import Foundation
import PiRelaySDK
import Testing

@testable import Supervisor

/// `approvals:` in config.yaml: rules for everyone and per session, what the extension gets, and
/// a clear error (file, line, column) for each way a rule can be wrong.
@Suite struct ApprovalConfigTests {
    static let yaml = """
        approvals:
          timeoutSeconds: 120
          rules:
            - name: rm-rf
              tools: bash
              command: 'rm\\s+-rf'
            - name: secrets
              tools: [write, edit]
              paths: [".env*", "~/.ssh/**"]
              outsideCwd: true
          sessions:
            api:
              rules:
                - name: deploys
                  tools: deploy
        """

    @Test func rulesForEveryoneAndOneSession() throws {
        let loaded = try ConfigTestHome().load(yaml: Self.yaml)
        let approvals = loaded.config.approvals
        #expect(loaded.warnings == [])
        #expect(approvals.timeout == .seconds(120))
        #expect(approvals.rules.map(\.name) == ["rm-rf", "secrets"])
        #expect(approvals.rules[0] == ApprovalRule(name: "rm-rf", tools: ["bash"], command: "rm\\s+-rf"))
        #expect(approvals.rules[1].paths == [".env*", "~/.ssh/**"] && approvals.rules[1].outsideCwd)
        #expect(approvals.rules(forSession: "api").map(\.name) == ["rm-rf", "secrets", "deploys"])
        #expect(approvals.rules(forSession: "web").map(\.name) == ["rm-rf", "secrets"])
        let sent = try #require(approvals.extensionJSON(forSession: "api"))
        #expect(sent["timeoutSeconds"] == 120)
        #expect(sent["rules"]?[2] == ["name": "deploys", "tools": ["deploy"]])
        #expect(Config().approvals.extensionJSON(forSession: "any") == nil, "no rules: nothing is gated")
        #expect(Config().approvals.timeout == .seconds(300))
        // A fraction of a second stays one: cut to a whole 0, the extension took it for unset (300 s).
        var quick = ApprovalSettings()
        quick.timeout = .milliseconds(500)
        quick.rules = approvals.rules
        #expect(quick.extensionJSON(forSession: "api")?["timeoutSeconds"] == 0.5)
        #expect(Config().pi.loadsExtension)
    }

    @Test func aBrokenRuleSaysWhereAndWhy() {
        let home = ConfigTestHome()
        let cases: [(String, String)] = [
            ("approvals:\n  rules:\n    - tools: bash\n", "needs a name"),
            ("approvals:\n  rules:\n    - name: x\n", "needs tools"),
            ("approvals:\n  rules:\n    - name: x\n      tools: bash\n      command: 'rm (-rf'\n", "not a valid regular expression"),
            ("approvals:\n  rules:\n    - {name: x, tools: bash}\n    - {name: x, tools: edit}\n", "repeats the rule name"),
            ("approvals:\n  timeoutSeconds: 0\n", "approvals.timeoutSeconds"),
            // JavaScript runs the gate: a month's wait fires its timer at once, and these escapes
            // are letters there, so the rule would never match.
            ("approvals:\n  timeoutSeconds: 2592000\n", "is at most 2000000"),
            ("approvals:\n  rules:\n    - name: x\n      tools: bash\n      command: 'git\\s+push\\z'\n", "\\z is the letter z to JavaScript"),
            ("approvals:\n  rules:\n    - name: x\n      tools: bash\n      command: '\\Arm\\h+-rf'\n", "\\A is the letter A"),
            ("approvals:\n  rules:\n    - name: x\n      tools: bash\n      command: '\\p{L}+'\n", "\\p is the letter p"),
            ("approvals:\n  rules:\n    - name: x\n      tools: bash\n      command: '(?i)rm'\n", "(?i… is not a group"),
            ("approvals:\n  rules:\n    - name: x\n      tools: bash\n      command: 'rm a++'\n", "possessive"),
            ("pi:\n  extension: maybe\n", "pi.extension must be true or false"),
        ]
        for (yaml, expected) in cases {
            let error = home.loadError(yaml: yaml)
            #expect(error.map { "\($0)".contains(expected) && "\($0)".contains("config.yaml:") } == true, "\(yaml): \(String(describing: error))")
        }
    }

    /// Security fails closed: a typo anywhere in `approvals:` (or in its name) is a gate the owner
    /// believes in force. It stops the start, with where and the nearest key, instead of a
    /// warning a background start never shows.
    @Test func aTypoInTheApprovalsIsRefusedWithTheNearestKey() throws {
        let home = ConfigTestHome()
        let cases: [(String, String)] = [
            (
                "approvals:\n  rules:\n    - name: x\n      tools: bash\n      comand: rm\n",
                ":5:7: unknown key 'comand' in approvals.rules[0] (did you mean 'command'?)"
            ),
            ("approvals:\n  rule:\n    - {name: x, tools: bash}\n", ":2:3: unknown key 'rule' in approvals (did you mean 'rules'?)"),
            ("approvals:\n  sessions:\n    api:\n      rulez: []\n", ":4:7: unknown key 'rulez' in approvals.sessions.api (did you mean 'rules'?)"),
            ("approval:\n  rules:\n    - {name: x, tools: bash}\n", ":1:1: unknown key 'approval' (did you mean 'approvals'?)"),
        ]
        for (yaml, expected) in cases {
            let error = home.loadError(yaml: yaml).map { "\($0)" } ?? "no error"
            #expect(error.contains(expected) && (error.contains("refused") || error.contains("not be in force")), "\(yaml): \(error)")
        }
    }

    /// The child's command line and environment carry the extension, its session and its gates.
    @Test func piChildrenGetTheExtensionWithTheirGates() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ext-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The extension's folder: index.ts is what pi loads (-e), version.ts says which version.
        let file = folder + "/index.ts"
        let versionFile = folder + "/version.ts"
        try "import { EXTENSION_VERSION } from \"./version.ts\";\n".write(toFile: file, atomically: true, encoding: .utf8)
        try "export const EXTENSION_VERSION = \"\(Version.current)\";\n".write(toFile: versionFile, atomically: true, encoding: .utf8)
        let loaded = try ConfigTestHome().load(yaml: Self.yaml)
        let files = ExtensionFiles(environment: ["PI_RELAYD_EXTENSION": folder])
        let launcher = PiLauncher(settings: loaded.config.pi, approvals: loaded.config.approvals, files: files, home: "/home/me/.pi-relayd")
        #expect(launcher.extensionProblem == nil)
        let spec = launcher.spec(cwd: "/w", sessionFile: nil, sessionID: "s1", sessionName: "api")
        #expect(spec.arguments.suffix(2) == ["-e", file])
        #expect(spec.environment["PI_RELAYD_SESSION"] == "s1" && spec.environment["PI_RELAYD_HOME"] == "/home/me/.pi-relayd")
        #expect(try JSONValue.parse(try #require(spec.environment["PI_RELAYD_APPROVALS"]))["rules"]?.arrayValue?.count == 3)

        try "export const EXTENSION_VERSION = \"0.0.9\";\n".write(toFile: versionFile, atomically: true, encoding: .utf8)
        let stale = PiLauncher(settings: loaded.config.pi, approvals: loaded.config.approvals, files: files)
        #expect(stale.extensionProblem?.contains("approval gates and agent tools are off") == true)
        #expect(!stale.spec(cwd: "/w", sessionFile: nil, sessionID: "s1", sessionName: "api").arguments.contains("-e"))

        var off = loaded.config.pi
        off.loadsExtension = false
        let disabled = PiLauncher(settings: off, approvals: loaded.config.approvals, files: files)
        #expect(disabled.extensionProblem == nil && disabled.extensionPath == nil)
    }
}

/// A session's own gates are found by its name, so a rename to or from a name with
/// `approvals.sessions` rules is refused rather than quietly changing which gates apply.
@Suite struct ApprovalRenameTests {
    @Test func aRenameThatWouldChangeTheGatesIsRefused() throws {
        let rule = ApprovalRule(name: "every-bash-call", tools: ["bash"], command: nil)
        let settings = ApprovalSettings(rules: [rule], sessionRules: ["prod-tools": [rule]])
        #expect(settings.renameRefusal(from: "prod-tools", to: "prod-old")?.contains("approvals.sessions.prod-tools") == true)
        #expect(settings.renameRefusal(from: "scratch", to: "prod-tools") != nil)
        #expect(settings.renameRefusal(from: "scratch", to: "scratch-2") == nil, "everyone's rules follow any name")
        #expect(settings.renameRefusal(from: "prod-tools", to: "prod-tools") == nil)
    }
}
