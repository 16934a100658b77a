import CLibYAML

/// Reads one YAML document with libyaml's event API into a `YAMLNode` tree. The event API (rather
/// than `yaml_parser_load`) gives each alias its own position, so an error in `disabled: *list`
/// points at the alias, and lets us apply merge keys and refuse duplicate keys ourselves.
package enum YAMLReader {
    package struct Failure: Error, Sendable, Equatable {
        package let mark: YAMLNode.Mark
        package let message: String
    }

    /// Aliases can make a small file describe an enormous tree ("billion laughs"); a config never
    /// needs more than this many values once aliases are expanded.
    package static let maximumExpandedNodes = 100_000
    /// Deep enough for any config, shallow enough that recursive walks cannot exhaust the stack.
    package static let maximumDepth = 128

    /// Returns the document's root node, or nil when the input has no document (empty, or only
    /// comments).
    package static func parse(_ bytes: [UInt8]) throws(Failure) -> YAMLNode? {
        // A byte-order mark (some Windows editors save UTF-8 with one) is no part of line 1: with
        // the encoding set, libyaml counted it as a column, and errors there pointed one past.
        let bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw Failure(mark: .init(line: 1, column: 1), message: "YAML parser could not start (out of memory)")
        }
        defer { yaml_parser_delete(&parser) }

        // libyaml reads straight from this buffer for the whole parse, so it must outlive the loop.
        let input = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        defer { input.deallocate() }
        _ = input.initialize(from: bytes)
        yaml_parser_set_input_string(&parser, input.baseAddress, bytes.count)
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)

        var builder = Builder()
        var event = yaml_event_t()
        while true {
            guard yaml_parser_parse(&parser, &event) == 1 else {
                throw syntaxFailure(parser, bytes: bytes)
            }
            let type = event.type
            do {
                try builder.handle(event)
            } catch {
                yaml_event_delete(&event)
                throw error
            }
            yaml_event_delete(&event)
            if type == YAML_STREAM_END_EVENT { break }
        }
        return builder.root
    }

    private static func syntaxFailure(_ parser: yaml_parser_t, bytes: [UInt8]) -> Failure {
        var message = "YAML syntax error: " + (parser.problem.map { String(cString: $0) } ?? "unknown error")
        var mark = YAMLReader.mark(parser.problem_mark)
        if parser.error == YAML_READER_ERROR {
            // Reader errors (bad UTF-8, control characters) carry a byte offset instead of a mark.
            mark = position(ofByte: parser.problem_offset, in: bytes)
        } else if let context = parser.context.map({ String(cString: $0) }) {
            // The context often points at the real culprit, e.g. the key missing its ':' on the
            // line before the one the problem is reported on.
            let start = YAMLReader.mark(parser.context_mark)
            if start.line != mark.line {
                message += " (\(context) at line \(start.line), column \(start.column))"
            }
        }
        if byte(at: mark, in: bytes) == UInt8(ascii: "\t") {
            message += "; indent with spaces, YAML does not allow tabs here"
        }
        return Failure(mark: mark, message: message)
    }

    /// The first byte of the character at a 1-based mark, if there is one.
    package static func byte(at mark: YAMLNode.Mark, in bytes: [UInt8]) -> UInt8? {
        var line = 1
        var index = 0
        while line < mark.line {
            guard let newline = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            index = newline + 1
            line += 1
        }
        var column = 1
        while index < bytes.count, column < mark.column {
            index += 1
            while index < bytes.count, bytes[index] & 0xC0 == 0x80 { index += 1 }
            column += 1
        }
        return index < bytes.count ? bytes[index] : nil
    }

    package static func position(ofByte offset: Int, in bytes: [UInt8]) -> YAMLNode.Mark {
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        let end = min(offset, bytes.count)
        // Columns count characters, like libyaml's marks: skip UTF-8 continuation bytes.
        let column = bytes[lineStart..<end].filter { $0 & 0xC0 != 0x80 }.count + 1
        return .init(line: line, column: column)
    }

    package static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
    }

    package static func mark(_ mark: yaml_mark_t) -> YAMLNode.Mark {
        .init(line: mark.line + 1, column: mark.column + 1)
    }
}
