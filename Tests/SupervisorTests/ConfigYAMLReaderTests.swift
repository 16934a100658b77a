import Testing

@testable import Supervisor

@Suite struct ConfigYAMLReaderTests {
    private func root(_ text: String) throws -> YAMLNode {
        let node = try #require(try parseYAML(text).get())
        return node
    }

    private func value(_ node: YAMLNode, _ key: String) -> YAMLNode? {
        node.pairs?.first { if case .scalar(key, _) = $0.key.content { true } else { false } }?.value
    }

    private func failure(_ text: String) -> YAMLReader.Failure? {
        if case .failure(let f) = parseYAML(text) { return f }
        return nil
    }

    @Test func keepsOneBasedLineAndColumnOfEveryNode() throws {
        let doc = try root("pi:\n  command: pi\n  args: [--a, \"b\"]\n")
        let pi = try #require(value(doc, "pi"))
        #expect(doc.mark == .init(line: 1, column: 1))
        #expect(pi.mark == .init(line: 2, column: 3))
        #expect(value(pi, "command")?.mark == .init(line: 2, column: 12))
        let args = try #require(value(pi, "args"))
        #expect(args.mark == .init(line: 3, column: 9))
        #expect(args.items?.map(\.mark) == [.init(line: 3, column: 10), .init(line: 3, column: 15)])
        #expect(pi.pairs?.map(\.key.mark) == [.init(line: 2, column: 3), .init(line: 3, column: 3)])
    }

    @Test func emptyOrCommentOnlyInputHasNoDocument() throws {
        #expect(try parseYAML("").get() == nil)
        #expect(try parseYAML("# nothing yet\n\n").get() == nil)
    }

    @Test func aliasesCopyTheAnchoredValueButPointAtTheAlias() throws {
        let doc = try root("base: &dirs [/a, /b]\nother: *dirs\n")
        let other = try #require(value(doc, "other"))
        #expect(other.items?.compactMap(\.scalarValue) == [.string("/a"), .string("/b")])
        #expect(other.mark == .init(line: 2, column: 8))
        // The items inside still point at where they are written.
        #expect(other.items?.first?.mark == .init(line: 1, column: 14))
    }

    @Test func mergeKeysApplyWithExplicitKeysWinning() throws {
        let doc = try root(
            """
            defaults: &d {cwd: /srv, name: base, requireMention: true}
            extra: &e {name: extra, tag: x}
            channel:
              <<: [*d, *e]
              name: mine
            """)
        let channel = try #require(value(doc, "channel"))
        #expect(value(channel, "name")?.scalarValue == .string("mine"))
        #expect(value(channel, "cwd")?.scalarValue == .string("/srv"))
        #expect(value(channel, "requireMention")?.scalarValue == .bool(true))
        #expect(value(channel, "tag")?.scalarValue == .string("x"))
        #expect(channel.pairs?.count == 4)
        #expect(value(channel, "<<") == nil)
    }

    @Test func scalarsFollowTheCoreSchema() throws {
        let doc = try root(
            """
            a: NO
            b: 0x1F
            c: 8_388_608
            d: 1.5
            e: .inf
            f: "5"
            g: !!str 5
            h: !!int "7"
            i: ~
            j: True
            k: 123456789012345678901234567890
            l: -007
            m: 1e3
            n: '1.0'
            o: yes
            """)
        let expected: [(String, YAMLNode.ScalarValue)] = [
            ("a", .string("NO")), ("b", .integer("31")), ("c", .integer("8388608")), ("d", .float(1.5)),
            ("e", .float(.infinity)), ("f", .string("5")), ("g", .string("5")), ("h", .integer("7")),
            ("i", .null), ("j", .bool(true)), ("k", .integer("123456789012345678901234567890")),
            ("l", .integer("-7")), ("m", .float(1000)), ("n", .string("1.0")), ("o", .string("yes")),
        ]
        for (key, scalar) in expected {
            #expect(value(doc, key)?.scalarValue == scalar, "key \(key)")
        }
    }

    @Test func syntaxErrorsCarryLibyamlsProblemAndPosition() throws {
        let missingKey = try #require(failure("pi:\n  command: pi\n args: []\n"))
        #expect(missingKey.mark == .init(line: 3, column: 2))
        #expect(missingKey.message == "YAML syntax error: did not find expected key (while parsing a block mapping at line 1, column 1)")

        let flow = try #require(failure("a: [1, 2\nb: 3\n"))
        #expect(flow.mark == .init(line: 2, column: 2))
        #expect(flow.message == "YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence at line 1, column 4)")

        let colon = try #require(failure("a: b: c\n"))
        #expect(colon.mark == .init(line: 1, column: 5))
        #expect(colon.message == "YAML syntax error: mapping values are not allowed in this context")
    }

    @Test func tabIndentationGetsAHint() throws {
        let tab = try #require(failure("logs:\n\tlevel: info\n"))
        #expect(tab.mark == .init(line: 2, column: 1))
        #expect(tab.message == "YAML syntax error: found character that cannot start any token; indent with spaces, YAML does not allow tabs here")
    }

    @Test func invalidUTF8IsReportedAtItsLineAndColumn() throws {
        var bytes = Array("a: ok\nb: é".utf8)
        bytes.append(0xFF)
        bytes.append(contentsOf: Array("\n".utf8))
        #expect(throws: YAMLReader.Failure.self) { try YAMLReader.parse(bytes) }
        do {
            _ = try YAMLReader.parse(bytes)
        } catch {
            #expect(error.mark == .init(line: 2, column: 5))
            #expect(error.message.hasPrefix("YAML syntax error: invalid"))
        }
    }

    @Test func duplicateKeysAreErrors() throws {
        let dup = try #require(failure("logs:\n  level: info\n  level: debug\n"))
        #expect(dup.mark == .init(line: 3, column: 3))
        #expect(dup.message == "duplicate key 'level' (first at line 2)")
    }

    @Test func aliasProblemsAreErrors() throws {
        let undefined = try #require(failure("a: 1\nb: *nowhere\n"))
        #expect(undefined.mark == .init(line: 2, column: 4))
        #expect(undefined.message == "alias *nowhere has no anchor &nowhere before it")

        let recursive = try #require(failure("a: &self [1, *self]\n"))
        #expect(recursive.message == "alias *self is inside the value it refers to")

        let badMerge = try #require(failure("a: &n 5\nb:\n  <<: *n\n"))
        #expect(badMerge.mark == .init(line: 3, column: 7))
        #expect(badMerge.message == "the value of << must be a map or a list of maps, not a number")

        // Two `<<` in one map: one of them would be dropped without a word.
        let twice = try #require(failure("a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: *a\n  <<: *b\n"))
        #expect(twice.mark == .init(line: 5, column: 3))
        #expect(twice.message == "duplicate key \"<<\" (first at line 4); merge several maps with one: << [*a, *b]")
    }

    @Test func aliasBombsAreStopped() throws {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1...6 {
            text += "a\(i): &a\(i) [" + Array(repeating: "*a\(i - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        let bomb = try #require(failure(text))
        #expect(bomb.message == "aliases expand this document to more than 100000 values")
        // a4 already expands to 111111 values.
        #expect(bomb.mark.line == 5)
    }

    @Test func deepNestingIsRefused() throws {
        let text = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        let deep = try #require(failure(text))
        #expect(deep.mark == .init(line: 1, column: 129))
        #expect(deep.message == "lists and maps are nested more than 128 deep")
    }

    @Test func onlyOneDocumentAndOnlyCoreTags() throws {
        let two = try #require(failure("a: 1\n---\nb: 2\n"))
        #expect(two.mark == .init(line: 2, column: 1))
        #expect(two.message == "a second YAML document starts here; the file must hold exactly one")

        let tag = try #require(failure("token: !env DISCORD_BOT_TOKEN\n"))
        #expect(tag.mark == .init(line: 1, column: 8))
        #expect(tag.message == "unsupported YAML tag !env")

        let wrongTag = try #require(failure("n: !!int seven\n"))
        #expect(wrongTag.message == "this value is tagged !!int but is not one")
    }

    @Test func mapKeysMustBeScalars() throws {
        let complex = try #require(failure("? [a, b]\n: 1\n"))
        #expect(complex.mark == .init(line: 1, column: 3))
        #expect(complex.message == "a map key must be plain text, not a list")
    }
}
