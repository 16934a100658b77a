/// One node of a parsed YAML document. Every node keeps where it starts in the file so that config
/// errors can point at the exact line and column. Aliases are already expanded by `YAMLReader`.
package struct YAMLNode: Sendable {
    /// A 1-based position in the file (libyaml counts from 0; people count from 1).
    package struct Mark: Sendable, Hashable, CustomStringConvertible {
        package let line: Int
        package let column: Int

        package var description: String { "\(line):\(column)" }
    }

    package struct Pair: Sendable {
        package let key: YAMLNode
        package let value: YAMLNode
    }

    package enum Content: Sendable {
        /// `text` is the scalar as written (quotes and escapes already processed). `plain` is true
        /// for an unquoted scalar without a tag: only those are read as numbers, booleans or null.
        case scalar(text: String, plain: Bool)
        case sequence([YAMLNode])
        /// In file order; merge keys (`<<: *base`) are already applied.
        case mapping([Pair])
    }

    package var content: Content
    /// The resolved tag when one was written (`!!int` arrives as `tag:yaml.org,2002:int`).
    package var tag: String?
    package var mark: Mark
}

extension YAMLNode {
    package static let coreTagPrefix = "tag:yaml.org,2002:"

    package var isNull: Bool {
        if case .null = scalarValue { return true }
        return false
    }

    /// The pairs of a mapping, nil for anything else.
    package var pairs: [Pair]? {
        if case .mapping(let pairs) = content { return pairs }
        return nil
    }

    /// The items of a sequence, nil for anything else.
    package var items: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    /// What this node is, for "got ..." in error messages. Never includes the value itself: it may
    /// be a secret written in the wrong place.
    package var kindDescription: String {
        switch content {
        case .sequence: return "a list"
        case .mapping: return "a map"
        case .scalar:
            switch scalarValue {
            case .null, .none: return "nothing (null)"
            case .bool: return "true/false"
            case .integer, .float: return "a number"
            case .string: return "a string"
            }
        }
    }
}
