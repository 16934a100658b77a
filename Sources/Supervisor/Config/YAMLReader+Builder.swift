import CLibYAML

extension YAMLReader {
    /// Turns the event stream into a tree: a stack of open lists and maps, plus the anchors seen so
    /// far. Every value's expanded size is tracked so alias bombs are stopped early.
    package struct Builder {
        private struct OpenMap {
            var pairs: [YAMLNode.Pair] = []
            var pendingKey: YAMLNode?
            var keyMarks: [String: YAMLNode.Mark] = [:]
            /// Maps named by `<<`, in the order they take precedence.
            var mergeSources: [YAMLNode] = []
            /// Where `<<` stands: a second is a duplicate key like any other (YAML's merge key
            /// takes a list for several maps), not a silent choice between them.
            var mergeMark: YAMLNode.Mark?
        }

        private enum Open {
            case sequence([YAMLNode])
            case mapping(OpenMap)
        }

        private struct Frame {
            var open: Open
            let tag: String?
            let anchor: String?
            let mark: YAMLNode.Mark
            var size = 1
        }

        private var stack: [Frame] = []
        private var anchors: [String: (node: YAMLNode, size: Int)] = [:]
        private var documents = 0
        package private(set) var root: YAMLNode?

        package mutating func handle(_ event: yaml_event_t) throws(Failure) {
            let mark = YAMLReader.mark(event.start_mark)
            switch event.type {
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 {
                    throw Failure(mark: mark, message: "a second YAML document starts here; the file must hold exactly one")
                }
            case YAML_ALIAS_EVENT:
                let name = YAMLReader.string(event.data.alias.anchor) ?? ""
                guard let anchored = anchors[name] else {
                    if stack.contains(where: { $0.anchor == name }) {
                        throw Failure(mark: mark, message: "alias *\(name) is inside the value it refers to")
                    }
                    throw Failure(mark: mark, message: "alias *\(name) has no anchor &\(name) before it")
                }
                var node = anchored.node
                node.mark = mark
                try attach(node, size: anchored.size)
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                let tag = YAMLReader.string(scalar.tag)
                try Self.checkScalarTag(tag, text: text, mark: mark)
                let plain = scalar.style == YAML_PLAIN_SCALAR_STYLE && tag == nil
                let node = YAMLNode(content: .scalar(text: text, plain: plain), tag: tag, mark: mark)
                if let anchor = YAMLReader.string(scalar.anchor) { anchors[anchor] = (node, 1) }
                try attach(node, size: 1)
            case YAML_SEQUENCE_START_EVENT:
                let sequence = event.data.sequence_start
                try open(
                    .sequence([]), tag: YAMLReader.string(sequence.tag), anchor: YAMLReader.string(sequence.anchor),
                    expecting: "seq", mark: mark)
            case YAML_MAPPING_START_EVENT:
                let mapping = event.data.mapping_start
                try open(
                    .mapping(OpenMap()), tag: YAMLReader.string(mapping.tag), anchor: YAMLReader.string(mapping.anchor),
                    expecting: "map", mark: mark)
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                try close()
            default:
                break
            }
        }

        private mutating func open(
            _ open: Open, tag: String?, anchor: String?, expecting: String,
            mark: YAMLNode.Mark
        ) throws(Failure) {
            if let tag, tag != "!", tag != YAMLNode.coreTagPrefix + expecting {
                throw Failure(mark: mark, message: "unsupported YAML tag \(YAMLReader.shown(tag: tag)) on a \(expecting == "seq" ? "list" : "map")")
            }
            guard stack.count < YAMLReader.maximumDepth else {
                throw Failure(mark: mark, message: "lists and maps are nested more than \(YAMLReader.maximumDepth) deep")
            }
            stack.append(Frame(open: open, tag: tag, anchor: anchor, mark: mark))
        }

        private mutating func close() throws(Failure) {
            let frame = stack.removeLast()
            let content: YAMLNode.Content
            switch frame.open {
            case .sequence(let items):
                content = .sequence(items)
            case .mapping(let map):
                content = .mapping(Self.merged(map))
            }
            let node = YAMLNode(content: content, tag: frame.tag, mark: frame.mark)
            if let anchor = frame.anchor { anchors[anchor] = (node, frame.size) }
            try attach(node, size: frame.size)
        }

        /// Explicit keys win over merged ones; among merged maps the first listed wins (YAML merge
        /// key semantics).
        private static func merged(_ map: OpenMap) -> [YAMLNode.Pair] {
            var pairs = map.pairs
            var seen = Set(map.keyMarks.keys)
            for source in map.mergeSources {
                for pair in source.pairs ?? [] {
                    guard case .scalar(let name, _) = pair.key.content, !seen.contains(name) else { continue }
                    seen.insert(name)
                    pairs.append(pair)
                }
            }
            return pairs
        }

        private mutating func attach(_ node: YAMLNode, size: Int) throws(Failure) {
            guard !stack.isEmpty else {
                root = node
                return
            }
            let top = stack.count - 1
            stack[top].size += size
            if stack[top].size > YAMLReader.maximumExpandedNodes {
                throw Failure(
                    mark: node.mark,
                    message:
                        "aliases expand this document to more than \(YAMLReader.maximumExpandedNodes) values")
            }
            switch stack[top].open {
            case .sequence(var items):
                stack[top].open = .sequence([])  // keep `items` uniquely referenced while appending
                items.append(node)
                stack[top].open = .sequence(items)
            case .mapping(var map):
                stack[top].open = .sequence([])
                try Self.add(node, to: &map)
                stack[top].open = .mapping(map)
            }
        }

        private static func add(_ node: YAMLNode, to map: inout OpenMap) throws(Failure) {
            guard let key = map.pendingKey else {
                guard case .scalar = node.content else {
                    throw Failure(mark: node.mark, message: "a map key must be plain text, not \(node.kindDescription)")
                }
                map.pendingKey = node
                return
            }
            map.pendingKey = nil
            guard case .scalar(let name, let plain) = key.content else { return }
            let isMerge = (plain && name == "<<") || key.tag == YAMLNode.coreTagPrefix + "merge"
            if isMerge {
                if let first = map.mergeMark {
                    throw Failure(
                        mark: key.mark,
                        message: "duplicate key \"<<\" (first at line \(first.line)); merge several maps with one: << [*a, *b]")
                }
                map.mergeMark = key.mark
                if node.pairs != nil {
                    map.mergeSources.append(node)
                } else if let items = node.items, items.allSatisfy({ $0.pairs != nil }) {
                    map.mergeSources.append(contentsOf: items)
                } else {
                    throw Failure(
                        mark: node.mark,
                        message: "the value of << must be a map or a list of maps, not \(node.kindDescription)")
                }
                return
            }
            if let first = map.keyMarks[name] {
                throw Failure(mark: key.mark, message: "duplicate key \(YAMLNode.quoted(name)) (first at line \(first.line))")
            }
            map.keyMarks[name] = key.mark
            map.pairs.append(YAMLNode.Pair(key: key, value: node))
        }

        /// Only the core schema's tags (and `!` for "just a string") mean something here; anything
        /// else would be silently misread, so it is an error.
        private static func checkScalarTag(_ tag: String?, text: String, mark: YAMLNode.Mark) throws(Failure) {
            guard let tag, tag != "!" else { return }
            let fits: Bool
            switch tag {
            case YAMLNode.coreTagPrefix + "str": fits = true
            case YAMLNode.coreTagPrefix + "null": fits = YAMLNode.resolvePlain(text) == .null
            case YAMLNode.coreTagPrefix + "bool":
                if case .bool = YAMLNode.resolvePlain(text) { fits = true } else { fits = false }
            case YAMLNode.coreTagPrefix + "int":
                if case .integer = YAMLNode.resolvePlain(text) { fits = true } else { fits = false }
            case YAMLNode.coreTagPrefix + "float":
                switch YAMLNode.resolvePlain(text) {
                case .float, .integer: fits = true
                default: fits = false
                }
            default:
                throw Failure(mark: mark, message: "unsupported YAML tag \(YAMLReader.shown(tag: tag))")
            }
            if !fits {
                let name = tag.dropFirst(YAMLNode.coreTagPrefix.count)
                throw Failure(mark: mark, message: "this value is tagged !!\(name) but is not one")
            }
        }
    }
}
