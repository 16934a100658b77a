import PiRelaySDK
import Testing

@testable import MessengerKit

/// Signing in as `setup`, `doctor` and a messenger's start read it: a refused token and a service
/// not reached become the answers `messenger.identity` gives; anything else passes through.
@Suite struct SignInErrorTests {
    struct ServiceError: SignInError, Equatable {
        var refusesToken = false
        var unreached: String?
    }

    struct Other: Error {}

    private func signIn(throwing error: (any Error)?) async throws -> String {
        try await ServiceError.signingIn(service: "Chat", base: "https://chat.example") { _ in
            "Chat refused the bot token: set CHAT_TOKEN"
        } _: {
            if let error { throw error }
            return "bot"
        }
    }

    @Test func aTokenRefusedIsNotAuthorizedWithTheMessengersText() async {
        await #expect(throws: RemoteError(code: .notAuthorized, message: "Chat refused the bot token: set CHAT_TOKEN")) {
            try await signIn(throwing: ServiceError(refusesToken: true))
        }
    }

    @Test func aServiceNotReachedIsUnavailableAndSaysWhere() async {
        await #expect(throws: RemoteError(code: .unavailable, message: "could not reach Chat at https://chat.example: could not connect")) {
            try await signIn(throwing: ServiceError(unreached: "could not connect"))
        }
    }

    @Test func otherErrorsPassThroughAndAnAnswerIsReturned() async throws {
        await #expect(throws: ServiceError()) { try await signIn(throwing: ServiceError()) }
        await #expect(throws: Other.self) { try await signIn(throwing: Other()) }
        #expect(try await signIn(throwing: nil) == "bot")
    }
}
