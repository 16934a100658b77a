/// A service's id in config: a user, a chat, a channel. Written as a YAML number or a string; the
/// plugin always gets a string, read from the text (never through a Double, so 64-bit ids keep
/// every digit).
public struct ConfigID: Sendable, Equatable {
    /// How the id is spelled.
    public enum Form: Sendable, Equatable {
        /// Digits, at most `maxDigits` of them; `signed` allows a leading `-` (Telegram's groups).
        case digits(maxDigits: Int, signed: Bool)
        /// One of `letters` (the id's kind, Slack's `U`, `C`…), then capital letters and digits.
        case prefixed(letters: String)
    }

    /// What it is, for errors: "a Telegram user id".
    public var what: String
    /// How to find a right one, after "must be WHAT: ".
    public var hint: String
    public var form: Form

    /// An id.
    public init(what: String, hint: String, form: Form) {
        self.what = what
        self.hint = hint
        self.form = form
    }

    /// Whether `text` is such an id.
    public func accepts(_ text: String) -> Bool {
        switch form {
        case .digits(let maxDigits, let signed):
            let digits = signed && text.hasPrefix("-") ? text.dropFirst() : Substring(text)
            return !digits.isEmpty && digits.count <= maxDigits && digits.allSatisfy { $0.isASCII && $0.isNumber }
        case .prefixed(let letters):
            guard let first = text.first, letters.contains(first), text.count >= 2 else { return false }
            return text.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) }
        }
    }
}

extension ConfigID: WirePayload {
    /// Reads an id type (`type: id`): `digits` (and `signed`) or `letters`.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "id")
        let form: Form
        if let letters = fields.optionalString("letters"), !letters.isEmpty {
            form = .prefixed(letters: letters)
        } else {
            form = .digits(maxDigits: fields.optionalInt("digits") ?? 20, signed: fields.bool("signed", default: false))
        }
        self.init(what: fields.optionalString("what") ?? "an id", hint: fields.optionalString("hint") ?? "", form: form)
    }

    /// `{type: id, what, hint, digits, signed}` or `{type: id, what, hint, letters}`.
    public var json: JSONValue {
        var object: JSONValue = ["type": "id", "what": .string(what), "hint": .string(hint)]
        switch form {
        case .digits(let maxDigits, let signed):
            object["digits"] = JSONValue(maxDigits)
            object["signed"] = .bool(signed)
        case .prefixed(let letters): object["letters"] = .string(letters)
        }
        return object
    }
}
