/// Signing in, as a pure state machine: each authentication message the server sends goes in,
/// what to answer comes out. It holds the server to the order the protocol allows: a password
/// is sent at most once and only before sign-in, and a server that began SCRAM must prove it
/// knows the password (its final signature) before its "OK" is taken.
struct SignIn {
    /// What to send the server next.
    enum Answer: Equatable {
        case password(String)
        case saslInitial(mechanism: String, data: [UInt8])
        case saslResponse([UInt8])
    }

    private enum State {
        case awaitingRequest
        case passwordSent
        case scramStarted(SCRAM)
        case scramAnswered(SCRAM)
        case scramVerified
        case signedIn
    }

    private let user: String
    private let password: String?
    private let nonce: String
    private var state = State.awaitingRequest

    init(user: String, password: String?, nonce: String = SCRAM.makeNonce()) {
        self.user = user
        self.password = password
        self.nonce = nonce
    }

    var isSignedIn: Bool {
        if case .signedIn = state { return true }
        return false
    }

    mutating func take(_ message: BackendMessage) throws(WireError) -> Answer? {
        switch (message, state) {
        case (.authenticationOK, .awaitingRequest), (.authenticationOK, .passwordSent), (.authenticationOK, .scramVerified):
            state = .signedIn
            return nil
        case (.authenticationOK, .scramStarted), (.authenticationOK, .scramAnswered):
            throw .authentication("the server ended SCRAM without proving it knows the password")
        case (.cleartextPasswordWanted, .awaitingRequest):
            state = .passwordSent
            return .password(try wantedPassword())
        case (.md5PasswordWanted(let salt), .awaitingRequest):
            let inner = Self.hex(MD5.hash(Array((try wantedPassword() + user).utf8)))
            state = .passwordSent
            return .password("md5" + Self.hex(MD5.hash(Array(inner.utf8) + salt)))
        case (.saslMechanisms(let offered), .awaitingRequest):
            guard offered.contains("SCRAM-SHA-256") else {
                throw .authentication("the server offers \(offered.joined(separator: ", ")), not SCRAM-SHA-256")
            }
            let exchange = SCRAM(password: try wantedPassword(), nonce: nonce)
            state = .scramStarted(exchange)
            return .saslInitial(mechanism: "SCRAM-SHA-256", data: exchange.first)
        case (.saslContinue(let data), .scramStarted(var exchange)):
            let answer = try exchange.respond(to: data)
            state = .scramAnswered(exchange)
            return .saslResponse(answer)
        case (.saslFinal(let data), .scramAnswered(let exchange)):
            try exchange.verify(data)
            state = .scramVerified
            return nil
        default:
            throw .protocolViolation("an authentication message out of turn")
        }
    }

    private func wantedPassword() throws(WireError) -> String {
        guard let password else { throw .authentication("the server wants a password and the database URL gives none") }
        return password
    }

    private static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }
}
