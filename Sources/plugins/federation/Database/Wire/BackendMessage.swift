import NIOCore

/// What the server sends, as much of each message as the client acts on (protocol v3,
/// "Message Formats" in PostgreSQL's documentation).
enum BackendMessage: Sendable, Equatable {
    case authenticationOK
    case cleartextPasswordWanted
    case md5PasswordWanted(salt: [UInt8])
    case saslMechanisms([String])
    case saslContinue([UInt8])
    case saslFinal([UInt8])
    case readyForQuery
    case dataRow([[UInt8]?])
    /// An ErrorResponse's fields by their one-letter codes (S severity, C SQLSTATE, M message).
    case error([UInt8: String])
    case notification(channel: String, payload: String)
    /// Anything the client reads past: parameter status, key data, notices, parse and bind
    /// completions, command tags.
    case ignored

    /// Reads one message of `type` from its body.
    init(type: UInt8, body: inout ByteBuffer) throws(WireError) {
        switch type {
        case UInt8(ascii: "R"):
            guard let code = body.readInteger(as: Int32.self) else { throw .protocolViolation("a short authentication message") }
            switch code {
            case 0: self = .authenticationOK
            case 3: self = .cleartextPasswordWanted
            case 5:
                guard let salt = body.readBytes(length: 4) else { throw .protocolViolation("an MD5 request without its salt") }
                self = .md5PasswordWanted(salt: salt)
            case 10:
                var mechanisms: [String] = []
                while let name = body.readNullTerminatedString(), !name.isEmpty { mechanisms.append(name) }
                self = .saslMechanisms(mechanisms)
            case 11: self = .saslContinue(body.readBytes(length: body.readableBytes) ?? [])
            case 12: self = .saslFinal(body.readBytes(length: body.readableBytes) ?? [])
            default:
                throw .authentication("the server asks for a method this client does not speak (\(code)): use scram-sha-256, md5, password or trust")
            }
        case UInt8(ascii: "Z"):
            self = .readyForQuery
        case UInt8(ascii: "D"):
            guard let count = body.readInteger(as: Int16.self), count >= 0 else { throw .protocolViolation("a short data row") }
            var columns: [[UInt8]?] = []
            columns.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let length = body.readInteger(as: Int32.self) else { throw .protocolViolation("a short data row") }
                if length < 0 {
                    columns.append(nil)
                } else {
                    guard let bytes = body.readBytes(length: Int(length)) else { throw .protocolViolation("a short data row") }
                    columns.append(bytes)
                }
            }
            self = .dataRow(columns)
        case UInt8(ascii: "E"):
            var fields: [UInt8: String] = [:]
            while let code = body.readInteger(as: UInt8.self), code != 0, let value = body.readNullTerminatedString() {
                fields[code] = value
            }
            self = .error(fields)
        case UInt8(ascii: "A"):
            guard body.readInteger(as: Int32.self) != nil, let channel = body.readNullTerminatedString(),
                let payload = body.readNullTerminatedString()
            else { throw .protocolViolation("a short notification") }
            self = .notification(channel: channel, payload: payload)
        case UInt8(ascii: "S"), UInt8(ascii: "K"), UInt8(ascii: "N"), UInt8(ascii: "1"), UInt8(ascii: "2"), UInt8(ascii: "3"),
            UInt8(ascii: "C"), UInt8(ascii: "n"), UInt8(ascii: "I"), UInt8(ascii: "t"), UInt8(ascii: "T"), UInt8(ascii: "s"):
            self = .ignored
        default:
            throw .protocolViolation("an unexpected message '\(Character(Unicode.Scalar(type)))'")
        }
    }
}
