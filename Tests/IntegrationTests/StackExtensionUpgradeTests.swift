import Foundation
import PiRelaySDK
import Testing

/// Upgrading from a pi-relayd whose pi extension was one file (extensions/pi-relayd.ts) to the
/// folder (extensions/pi-relayd/index.ts), through the real CLI, the real daemon and a terminal
/// pi played by the fake pi extension host loading what pi would discover. Named Stack… so a
/// whole sanitizer run leaves it out, as the other stack suites.
@Suite(.serialized) struct StackExtensionUpgradeTests {
    /// What pi loads from one extensions folder (pi extension spec §1.1, auto-discovery, one level
    /// deep): each `.ts` or `.js` file directly in it, and each subfolder with an `index.ts` (else
    /// an `index.js`); names starting with `.` and `node_modules` are skipped. Sorted, as a
    /// directory listing would be for these names.
    static func discovered(in folder: String) -> [String] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        return names.compactMap { name in
            if name.hasPrefix(".") || name == "node_modules" { return nil }
            let path = folder + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
            if !isDirectory.boolValue { return name.hasSuffix(".ts") || name.hasSuffix(".js") ? path : nil }
            return ["index.ts", "index.js"].map { path + "/" + $0 }.first { FileManager.default.fileExists(atPath: $0) }
        }
    }

    /// An old single-file copy that gates as the extension does: it is the checkout's extension
    /// under the old file name, with an older version, so that if it stayed it would load and
    /// could claim the terminal session beside the folder.
    static var oldSingleFile: String {
        "// pi-relayd's extension as one file, from before the split into modules.\n"
            + "export { default } from \"\(HostedPi.extensionFile)\";\n"
            + "export const EXTENSION_VERSION = \"0.0.9\";\n"
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func afterAnUpgradeFromSingleFileCopiesOneInstanceGates() async throws {
        try await StackHome.with { stack in
            try await stack.start(StackConfig(extra: StackApprovalTests.rules))
            let agent = stack.home.scratch + "/agent"
            let global = agent + "/extensions"
            let project = stack.workspace + "/.pi/extensions"
            for folder in [global, project] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try Data(Self.oldSingleFile.utf8).write(to: URL(fileURLWithPath: folder + "/pi-relayd.ts"))
            }

            // The upgrade: install globally and into the project; each old copy goes, and says so.
            let cli = stack.home.cli(extra: ["PI_CODING_AGENT_DIR": agent])
            for (arguments, folder) in [(["extension", "install"], global), (["extension", "install", "--project", stack.workspace], project)] {
                let installed = try await cli.run(arguments)
                #expect(installed.status == 0, "\(installed)")
                #expect(installed.stdout.contains("removed the old single-file copy \(folder)/pi-relayd.ts"), "\(installed.stdout)")
                #expect(!FileManager.default.fileExists(atPath: folder + "/pi-relayd.ts"))
            }

            // pi's order: the project's extensions, then the agent folder's (spec §1.1). Both
            // folders are ours now, two copies of the same extension in different places.
            let loaded = Self.discovered(in: project) + Self.discovered(in: global)
            #expect(loaded == [project + "/pi-relayd/index.ts", global + "/pi-relayd/index.ts"], "\(loaded)")
            let pi = try HostedPi(
                home: stack.home, name: "pi1", cwd: stack.workspace, sessionID: StackTerminalTests.piSessionID, extensions: loaded)
            defer { pi.stop() }
            try await waitUntil("the terminal session is attached", timeout: .seconds(30)) {
                try await stack.sessions().contains { $0["id"]?.stringValue == StackTerminalTests.sessionID && $0["state"] == "idle" }
            }
            #expect(try await stack.sessions().filter { $0["kind"] == "terminal" }.count == 1, "one copy attached")
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(StackTerminalTests.sessionID)])

            // One gated call: one question in the chat, one dialog at the terminal, one decision.
            try await stack.dm("run: rm -rf build")
            let question = try await StackApprovalTests.gate(stack, dm, containing: "rm -rf build")
            try await pi.waitToSee("the terminal's copy") { $0["saw"] == "dialog" && $0["title"]?.stringValue?.contains("rm-rf") == true }
            // Time for a second copy's question, if one were active.
            try await Task.sleep(for: .milliseconds(800))
            let questions = try await stack.botMessages(dm).filter {
                $0["content"]?.stringValue?.contains("rm -rf build") == true && !($0["components"]?.arrayValue?.isEmpty ?? true)
            }
            #expect(questions.count == 1, "one gate, not one per loaded copy: \(questions)")
            let dialogs = pi.seen.filter { $0["saw"] == "dialog" && $0["title"]?.stringValue?.contains("rm-rf") == true }
            #expect(dialogs.count == 1, "\(dialogs)")
            _ = try await StackApprovalTests.press(stack, "Approve once", on: question)
            #expect(try await StackApprovalTests.runEnd(pi, after: 0).hasPrefix("Done: ran rm -rf build"))
            let decisions = stack.home.read("state/approvals.jsonl").split(separator: "\n")
            #expect(decisions.count == 1, "\(decisions)")
            #expect(pi.seen.filter { $0["saw"] == "extension_error" }.isEmpty, "\(pi.seen)")
        }
    }
}
