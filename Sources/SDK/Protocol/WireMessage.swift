/// One line of plugin protocol v1, in either direction (docs/PROTOCOL.md §4).
public enum WireMessage: Sendable, Equatable {
    /// The plugin's first line.
    case hello(Hello)
    /// pi-relayd's answer to the hello.
    case welcome(Welcome)
    /// A request; exactly one `response` answers it.
    case request(id: String, method: String, params: JSONValue, deadlineMs: Int?)
    /// The answer to a request.
    case response(id: String, result: Result<JSONValue, RemoteError>)
    /// A notification; nothing answers it.
    case notify(method: String, params: JSONValue)
    /// Acknowledged delivery: the receiver answers `ack` once it has handled the message, and
    /// dedupes by `id` because a message may be delivered again after a crash.
    case deliver(id: String, method: String, params: JSONValue)
    /// The answer to a delivery.
    case ack(id: String)
    /// pi-relayd checks the plugin is alive.
    case ping(id: String)
    /// The answer to a ping.
    case pong(id: String)
    /// pi-relayd asks the plugin to finish and exit 0.
    case shutdown(graceMs: Int?)
    /// pi-relayd refuses the plugin; `reason` says why.
    case goodbye(reason: String)
    /// A well-formed object with a `type` this version does not know; receivers ignore it.
    case unknown(type: String, raw: JSONValue)

    /// The protocol version this SDK speaks.
    public static let protocolVersion = 1
}

/// A line that is not a protocol message.
public struct WireDecodeError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with it.
    public let description: String
}

extension WireMessage {
    /// Reads one line (without its LF).
    public static func decode(_ line: [UInt8]) throws -> WireMessage {
        let value: JSONValue
        do { value = try JSONValue.parse(bytes: line) } catch { throw WireDecodeError(description: "\(error)") }
        return try decode(value)
    }

    /// Reads one message from its JSON.
    public static func decode(_ value: JSONValue) throws(WireDecodeError) -> WireMessage {
        guard case .object = value else { throw WireDecodeError(description: "a message must be a JSON object") }
        guard let type = value["type"]?.stringValue else { throw WireDecodeError(description: "missing string field \"type\"") }
        func string(_ key: String) throws(WireDecodeError) -> String {
            guard let text = value[key]?.stringValue else { throw WireDecodeError(description: "\(type): missing string field \"\(key)\"") }
            return text
        }
        switch type {
        case "hello":
            do { return .hello(try Hello(json: value)) } catch { throw WireDecodeError(description: error.message) }
        case "welcome":
            do { return .welcome(try Welcome(json: value)) } catch { throw WireDecodeError(description: error.message) }
        case "request":
            return .request(
                id: try string("id"), method: try string("method"), params: value["params"] ?? .object([:]),
                deadlineMs: value["deadlineMs"]?.intValue)
        case "response":
            let id = try string("id")
            if let error = value["error"], !error.isNull {
                let code = ErrorCode(rawValue: error["code"]?.stringValue ?? "internal")
                return .response(id: id, result: .failure(RemoteError(code: code, message: error["message"]?.stringValue ?? "")))
            }
            return .response(id: id, result: .success(value["result"] ?? .null))
        case "notify": return .notify(method: try string("method"), params: value["params"] ?? .object([:]))
        case "deliver": return .deliver(id: try string("id"), method: try string("method"), params: value["params"] ?? .object([:]))
        case "ack": return .ack(id: try string("id"))
        case "ping": return .ping(id: try string("id"))
        case "pong": return .pong(id: try string("id"))
        case "shutdown": return .shutdown(graceMs: value["graceMs"]?.intValue)
        case "goodbye": return .goodbye(reason: value["reason"]?.stringValue ?? "")
        default: return .unknown(type: type, raw: value)
        }
    }

    /// The message as JSON, `type` included.
    public var json: JSONValue {
        switch self {
        case .hello(let hello): return hello.json
        case .welcome(let welcome): return welcome.json
        case .request(let id, let method, let params, let deadline):
            var object: JSONValue = ["type": "request", "id": .string(id), "method": .string(method), "params": params]
            object["deadlineMs"] = deadline.map { JSONValue($0) }
            return object
        case .response(let id, .success(let result)):
            return ["type": "response", "id": .string(id), "result": result]
        case .response(let id, .failure(let error)):
            return ["type": "response", "id": .string(id), "error": error.json]
        case .notify(let method, let params): return ["type": "notify", "method": .string(method), "params": params]
        case .deliver(let id, let method, let params): return ["type": "deliver", "id": .string(id), "method": .string(method), "params": params]
        case .ack(let id): return ["type": "ack", "id": .string(id)]
        case .ping(let id): return ["type": "ping", "id": .string(id)]
        case .pong(let id): return ["type": "pong", "id": .string(id)]
        case .shutdown(let grace):
            var object: JSONValue = ["type": "shutdown"]
            object["graceMs"] = grace.map { JSONValue($0) }
            return object
        case .goodbye(let reason): return ["type": "goodbye", "reason": .string(reason)]
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
