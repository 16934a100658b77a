/// One request line on the control socket (docs/PROTOCOL.md §9): the CLI writes it, the daemon
/// reads it. A method the SDK does not know is `method_not_found`, before any handler runs.
public struct ControlRequest: Sendable, Equatable {
    /// Echoed in the answer; the CLI sends `"1"`, one request per connection.
    public var id: JSONValue
    public var method: ControlMethod
    /// The method's parameters, an object (`{}` when it takes none).
    public var params: JSONValue

    public init(id: JSONValue = "1", method: ControlMethod, params: JSONValue = [:]) {
        self.id = id
        self.method = method
        self.params = params
    }
}

extension ControlRequest: WirePayload {
    /// Reads a request line. A missing `method` or params that are not an object are
    /// `invalid_params`; a name that is no `ControlMethod` is `method_not_found`.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "control request")
        let name = try fields.string("method")
        guard let method = ControlMethod(rawValue: name) else { throw .methodNotFound(name) }
        let params = json["params"] ?? [:]
        guard params.objectValue != nil else { throw .invalidParams("\(name): params must be an object") }
        self.init(id: json["id"] ?? .null, method: method, params: params)
    }

    /// `id`, `method` and `params`, as one line's object.
    public var json: JSONValue {
        ["id": id, "method": .string(method.rawValue), "params": params]
    }
}
