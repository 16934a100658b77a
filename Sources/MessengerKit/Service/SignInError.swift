import PiRelaySDK

/// A service client's error as signing in reads it: at the relay's start and in
/// `messenger.identity`, where `setup` and `doctor` show what is wrong with the token.
public protocol SignInError: Error {
    /// The service refused the token: wrong, revoked or of the wrong kind. Retrying will not help.
    var refusesToken: Bool { get }
    /// What went wrong on the way when the service was not reached at all; nil when it answered.
    var unreached: String? { get }
}

extension SignInError {
    /// Runs `call`, one of the service's requests with the token, and turns its errors of this
    /// type into the answers `messenger.identity` gives: a refused token is `notAuthorized` with
    /// `refused`'s text, a service not reached at `base` is `unavailable`.
    @discardableResult
    public static func signingIn<T: Sendable>(
        service: String, base: String, refused: (Self) -> String, _ call: () async throws -> T
    ) async throws -> T {
        do { return try await call() } catch let error as Self where error.refusesToken {
            throw RemoteError(code: .notAuthorized, message: refused(error))
        } catch let error as Self where error.unreached != nil {
            throw RemoteError(code: .unavailable, message: "could not reach \(service) at \(base): \(error.unreached ?? "")")
        }
    }
}
