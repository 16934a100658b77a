import Foundation
import PostgresSupport
import Testing

/// docs/FEDERATION.md, "From one machine to three", taken as written: step 1's commands against a
/// fresh PostgreSQL (its package is already installed, by `make deps`; `sudo -u postgres` is the
/// cluster's superuser over its socket), step 2's name and `.env` line on three machines (the URL
/// in the form the guide gives for a database on the same machine, over its Unix socket), and
/// step 3's `pi-relayd restart` and `pi-relayd status`, which must say the others are online.
@Suite struct StackFederationGuideTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func theGuideJoinsThreeMachines() async throws {
        let guide = try Self.section("## From one machine to three")
        let blocks = Self.codeBlocks(guide)
        try #require(blocks.count == 4, "the guide's steps changed: \(blocks)")
        try await PostgresServer.with(superuser: "postgres") { database in
            for line in blocks[0] {
                if line.hasPrefix("sudo apt-get install") {
                    #expect(line.hasSuffix(" postgresql"), "make deps installs Debian's postgresql, not what the guide names")
                    continue
                }
                let prefix = "sudo -u postgres "
                try #require(line.hasPrefix(prefix), "a step the test cannot take: \(line)")
                let words = Self.words(String(line.dropFirst(prefix.count)))
                try await database.run(words[0], Array(words.dropFirst()) + ["-h", database.socketFolder, "-U", "postgres"])
            }
            // The URL for a database on the same machine, as the guide writes it, on this socket.
            let socketURL = try #require(guide.firstMatch(of: /postgres:\/\/relay@\/relay\?host=(\/[^` ]+)/))
            let url = String(socketURL.output.0).replacing(socketURL.output.1, with: database.socketFolder)
            let variable = try #require(blocks[2].first?.split(separator: "=").first.map(String.init))
            #expect(blocks[2].first?.hasPrefix("PI_RELAYD_DATABASE_URL=postgres://relay:") == true)
            try await TestHome.with { laptop in
                try await TestHome.with(gated: false) { desktop in
                    try await TestHome.with(gated: false) { server in
                        for (home, name) in [(laptop, "laptop"), (desktop, "desktop"), (server, "server")] {
                            try home.linkBuiltPlugin("pi-relay-federation", as: "federation")
                            try home.writeConfig(blocks[1].joined(separator: "\n").replacing("laptop", with: name) + "\n")
                            try home.writeFile(".env", "\(variable)=\(url)\n", mode: 0o600)
                            let restarted = try await home.run("restart")
                            #expect(restarted.status == 0, "\(restarted)")
                        }
                        let status = try #require(blocks[3].first.map(Self.words))
                        try #require(status == ["pi-relayd", "status"])
                        let expected = try #require(guide.firstMatch(of: /`(federation: desktop online, server online)`/)?.output.1)
                        var said = ""
                        let deadline = ContinuousClock.now + .seconds(60)
                        while ContinuousClock.now < deadline, !said.contains(expected) {
                            said = try await laptop.run("status").stdout
                            try await Task.sleep(for: .milliseconds(250))
                        }
                        #expect(said.contains(expected), "laptop's status:\n\(said)\n\(laptop.pluginLog("federation"))")
                        for home in [laptop, desktop, server] { _ = try await home.run("stop") }
                    }
                }
            }
        }
    }

    /// The guide's section under `heading`, up to the next section.
    static func section(_ heading: String) throws -> String {
        let root = String(#filePath.prefix(upTo: #filePath.range(of: "/Tests/")!.lowerBound))
        let text = try String(contentsOfFile: root + "/docs/FEDERATION.md", encoding: .utf8)
        guard let start = text.range(of: "\n" + heading + "\n") else { throw StackFailure("docs/FEDERATION.md has no \(heading)") }
        let rest = text[start.upperBound...]
        return String(rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest)
    }

    /// Each fenced block's lines, unindented, in order.
    static func codeBlocks(_ text: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                if let done = current { blocks.append(done) }
                current = current == nil ? [] : nil
            } else if current != nil, !trimmed.isEmpty {
                current?.append(trimmed)
            }
        }
        return blocks
    }

    /// A command line's words, as a shell splits them (quotes, no expansions).
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quote: Character?
        var inWord = false
        for c in line {
            if let q = quote {
                if c == q { quote = nil } else { word.append(c) }
            } else if c == "\"" || c == "'" {
                quote = c
                inWord = true
            } else if c == " " {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(c)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }
}
