/// One line of plugin protocol v1, in either direction. See docs/PROTOCOL.md.
public enum WireMessage: Sendable, Equatable {
    case hello(Hello)
    case welcome(JSONValue)
    case request(id: String, method: String, params: JSONValue, deadlineMs: Int?)
    case response(id: String, result: Result<JSONValue, RemoteError>)
    case notify(method: String, params: JSONValue)
    /// Acknowledged delivery: the receiver answers `ack` once it has handled the message, and
    /// dedupes by `id` because a message may be delivered again after a crash.
    case deliver(id: String, method: String, params: JSONValue)
    case ack(id: String)
    case ping(id: String)
    case pong(id: String)
    case shutdown(graceMs: Int?)
    case goodbye(reason: String)
    /// A well-formed object with a `type` this version does not know; receivers ignore it.
    case unknown(type: String, raw: JSONValue)

    public static let protocolVersion = 1
}

/// The first line a plugin writes.
public struct Hello: Sendable, Equatable, Codable {
    public var `protocol`: Int
    public var name: String
    public var version: String
    public var roles: [String]
    public var limits: [String: Int]
    public var description: String?

    public init(
        protocol: Int = WireMessage.protocolVersion, name: String, version: String, roles: [String],
        limits: [String: Int] = [:], description: String? = nil
    ) {
        self.protocol = `protocol`
        self.name = name
        self.version = version
        self.roles = roles
        self.limits = limits
        self.description = description
    }
}

/// An error carried in a response. `code` is machine-readable; `message` is for people.
public struct RemoteError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public var code: String
    public var message: String
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { "\(code): \(message)" }

    public static func methodNotFound(_ m: String) -> RemoteError { .init(code: "method_not_found", message: "unknown method \(m)") }
    public static func invalidParams(_ why: String) -> RemoteError { .init(code: "invalid_params", message: why) }
    public static func timeout(_ what: String) -> RemoteError { .init(code: "timeout", message: what) }
}

public struct WireDecodeError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

extension WireMessage {
    public static func decode(_ line: [UInt8]) throws -> WireMessage {
        let value: JSONValue
        do { value = try JSONValue.parse(bytes: line) } catch { throw WireDecodeError(description: "\(error)") }
        return try decode(value)
    }

    public static func decode(_ v: JSONValue) throws(WireDecodeError) -> WireMessage {
        guard case .object = v else { throw WireDecodeError(description: "a message must be a JSON object") }
        guard let type = v["type"]?.stringValue else { throw WireDecodeError(description: "missing string field \"type\"") }
        func str(_ k: String) throws(WireDecodeError) -> String {
            guard let s = v[k]?.stringValue else { throw WireDecodeError(description: "\(type): missing string field \"\(k)\"") }
            return s
        }
        switch type {
        case "hello":
            guard let p = v["protocol"]?.intValue else { throw WireDecodeError(description: "hello: missing integer field \"protocol\"") }
            var limits: [String: Int] = [:]
            for (k, lv) in v["limits"]?.objectValue ?? [:] { if let n = lv.intValue { limits[k] = n } }
            return .hello(
                Hello(
                    protocol: p, name: try str("name"), version: v["version"]?.stringValue ?? "0",
                    roles: (v["roles"]?.arrayValue ?? []).compactMap(\.stringValue),
                    limits: limits, description: v["description"]?.stringValue))
        case "welcome": return .welcome(v)
        case "request":
            return .request(
                id: try str("id"), method: try str("method"), params: v["params"] ?? .object([:]),
                deadlineMs: v["deadlineMs"]?.intValue)
        case "response":
            let id = try str("id")
            if let e = v["error"], !e.isNull {
                return .response(
                    id: id,
                    result: .failure(
                        RemoteError(
                            code: e["code"]?.stringValue ?? "error",
                            message: e["message"]?.stringValue ?? "")))
            }
            return .response(id: id, result: .success(v["result"] ?? .null))
        case "notify": return .notify(method: try str("method"), params: v["params"] ?? .object([:]))
        case "deliver": return .deliver(id: try str("id"), method: try str("method"), params: v["params"] ?? .object([:]))
        case "ack": return .ack(id: try str("id"))
        case "ping": return .ping(id: try str("id"))
        case "pong": return .pong(id: try str("id"))
        case "shutdown": return .shutdown(graceMs: v["graceMs"]?.intValue)
        case "goodbye": return .goodbye(reason: v["reason"]?.stringValue ?? "")
        default: return .unknown(type: type, raw: v)
        }
    }

    public var json: JSONValue {
        switch self {
        case .hello(let h):
            var o: JSONValue = [
                "type": "hello", "protocol": JSONValue(h.protocol), "name": .string(h.name),
                "version": .string(h.version), "roles": .array(h.roles.map { .string($0) }),
                "limits": .object(h.limits.mapValues { JSONValue($0) }),
            ]
            if let d = h.description { o["description"] = .string(d) }
            return o
        case .welcome(let v):
            var o = v
            o["type"] = "welcome"
            return o
        case .request(let id, let method, let params, let deadline):
            var o: JSONValue = ["type": "request", "id": .string(id), "method": .string(method), "params": params]
            if let deadline { o["deadlineMs"] = JSONValue(deadline) }
            return o
        case .response(let id, .success(let r)):
            return ["type": "response", "id": .string(id), "result": r]
        case .response(let id, .failure(let e)):
            return ["type": "response", "id": .string(id), "error": ["code": .string(e.code), "message": .string(e.message)]]
        case .notify(let m, let p): return ["type": "notify", "method": .string(m), "params": p]
        case .deliver(let id, let m, let p): return ["type": "deliver", "id": .string(id), "method": .string(m), "params": p]
        case .ack(let id): return ["type": "ack", "id": .string(id)]
        case .ping(let id): return ["type": "ping", "id": .string(id)]
        case .pong(let id): return ["type": "pong", "id": .string(id)]
        case .shutdown(let g):
            var o: JSONValue = ["type": "shutdown"]
            if let g { o["graceMs"] = JSONValue(g) }
            return o
        case .goodbye(let r): return ["type": "goodbye", "reason": .string(r)]
        case .unknown(_, let raw): return raw
        }
    }

    /// The line to write, LF included.
    public func encodedLine() -> [UInt8] {
        var out = json.serializedBytes()
        out.append(0x0A)
        return out
    }
}
