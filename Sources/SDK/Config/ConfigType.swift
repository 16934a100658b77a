/// What a config key holds, and so how pi-relayd checks it and what the plugin receives.
public indirect enum ConfigType: Sendable, Equatable {
    /// `true`/`false` (YAML's `yes`/`no`/`on`/`off` too); the plugin gets a JSON boolean.
    case bool
    /// A whole number, within `range` when given.
    case integer(ClosedRange<Int>?)
    /// Text as written (an unquoted number is refused); `nonEmpty` refuses "".
    case string(nonEmpty: Bool)
    /// One of a fixed set of words, as written.
    case choice([String])
    /// A URL: see `ConfigURL`.
    case url(ConfigURL)
    /// The name of an environment variable (or .env entry) holding a secret: see `ConfigSecret`.
    case secret(ConfigSecret)
    /// An absolute path; a leading `~/` is expanded before the plugin sees it.
    case path
    /// A service's id: see `ConfigID`. The plugin gets it as a string.
    case id(ConfigID)
    /// A list, each item of the type given; `what` names the whole list in errors.
    case list(ConfigType, what: String)
    /// The word `all`, or a list, each item of the type given (`sharedRooms: all`, or the rooms'
    /// ids); the plugin gets `"all"` or the list.
    case allOrList(ConfigType, what: String)
    /// A list of maps, each keyed by one of its keys: see `ConfigEntries`.
    case entries(ConfigEntries)
    /// Passed on as written; the plugin checks it.
    case any
}

extension ConfigType {
    /// Reads a type from an object's `type` member and its companions.
    public init(json: JSONValue, context: String) throws(RemoteError) {
        let fields = try PayloadFields(json, context)
        switch try fields.string("type") {
        case "bool": self = .bool
        case "integer":
            let low = fields.optionalInt("min") ?? Int.min, high = fields.optionalInt("max") ?? Int.max
            guard low <= high else { throw .invalidParams("\(context): min is above max") }
            self = .integer(fields.optionalInt("min") == nil && fields.optionalInt("max") == nil ? nil : low...high)
        case "string": self = .string(nonEmpty: fields.bool("nonEmpty", default: false))
        case "choice":
            let words = fields.strings("values")
            guard !words.isEmpty else { throw .invalidParams("\(context): a choice needs values") }
            self = .choice(words)
        case "url": self = .url(try ConfigURL(json: json))
        case "secret": self = .secret(try ConfigSecret(json: json))
        case "path": self = .path
        case "id": self = .id(try ConfigID(json: json))
        case "list":
            self = .list(try ConfigType(json: try fields.object("of"), context: "\(context).of"), what: fields.optionalString("what") ?? "a list")
        case "allOrList":
            self = .allOrList(
                try ConfigType(json: try fields.object("of"), context: "\(context).of"), what: fields.optionalString("what") ?? "a list")
        case "entries": self = .entries(try ConfigEntries(json: json))
        case "any": self = .any
        case let other: throw .invalidParams("\(context): unknown type \(other)")
        }
    }

    /// The type as an object: `type` and its companions.
    public var json: JSONValue {
        switch self {
        case .bool: return ["type": "bool"]
        case .integer(let range):
            var object: JSONValue = ["type": "integer"]
            if let range {
                object["min"] = range.lowerBound == Int.min ? nil : JSONValue(range.lowerBound)
                object["max"] = range.upperBound == Int.max ? nil : JSONValue(range.upperBound)
            }
            return object
        case .string(let nonEmpty): return nonEmpty ? ["type": "string", "nonEmpty": true] : ["type": "string"]
        case .choice(let words): return ["type": "choice", "values": .array(words.map { .string($0) })]
        case .url(let url): return url.json
        case .secret(let secret): return secret.json
        case .path: return ["type": "path"]
        case .id(let id): return id.json
        case .list(let item, let what): return ["type": "list", "what": .string(what), "of": item.json]
        case .allOrList(let item, let what): return ["type": "allOrList", "what": .string(what), "of": item.json]
        case .entries(let entries): return entries.json
        case .any: return ["type": "any"]
        }
    }
}
