import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A pi that fails to start explains itself on stderr, and the chat is told its words; a secret
/// from the daemon's environment among them is masked there as in the logs (a wrapper with
/// `set -x`, a provider's error quoting the key it refused).
@Suite struct ChatErrorRedactionTests {
    static let secret = "sk-test-9f8e7d6c5b4a3210"

    @Test func piStderrReachesTheChatWithSecretsMasked() async throws {
        try await E2EChatHome.with { chat in
            let pi = chat.home.scratch + "/leaky-pi"
            try Data("#!/bin/sh\necho \"401: invalid api key $PI_TEST_API_KEY\" >&2\nexit 1\n".utf8).write(to: URL(fileURLWithPath: pi))
            #expect(chmod(pi, 0o755) == 0)
            var config = chat.config()
            config.piCommand = pi
            try await chat.start(config, environment: ["PI_TEST_API_KEY": Self.secret])
            let reply = try await chat.inject(
                "chat.command", ["chat": E2EChatHome.chat(), "name": "new", "args": ["cwd": .string(chat.workspace), "name": "leaky"]])
            let text = reply["text"]?.stringValue ?? ""
            #expect(text.contains("could not start pi") && text.contains("401: invalid api key"), "\(reply)")
            #expect(!text.contains(Self.secret), "\(reply)")
        }
    }
}
