import Testing

@testable import FormatterPlugin

/// Seeded random markdown through the splitter: limits, fences, reconstruction, and boundaries.
@Suite struct SplittingPropertyTests {
    static let limits = [100, 101, 120, 157, 200, 333, 500, 800, 2000]

    @Test func randomMarkdownSplitsWithinTheLimitAndJoinsBack() throws {
        var multiChunk = 0
        for seed in UInt64(1)...3000 {
            var rng = SeededGenerator(seed: seed &* 0x9E37)
            let doc = GeneratedMarkdown(seed: seed, targetLength: rng.int(1...2500))
            let limit = rng.pick(Self.limits)
            let chunks = ChunkSplitter(limit: limit).split(doc.text)
            if chunks.count > 1 { multiChunk += 1 }
            do {
                try SplitInvariants.check(chunks, original: doc.text, atoms: doc.atoms, limit: limit)
            } catch {
                Issue.record("seed \(seed), limit \(limit): \(error)")
                return
            }
        }
        // The generator must actually exercise splitting.
        #expect(multiChunk > 2000)
    }

    @Test func unnumberedSplitsKeepTheSameProperties() throws {
        for seed in UInt64(5001)...5800 {
            var rng = SeededGenerator(seed: seed)
            let doc = GeneratedMarkdown(seed: seed, targetLength: rng.int(200...3000))
            let limit = rng.pick(Self.limits)
            let chunks = ChunkSplitter(limit: limit).split(doc.text, numbered: false)
            do {
                try SplitInvariants.check(chunks, original: doc.text, atoms: doc.atoms, limit: limit, numbered: false)
            } catch {
                Issue.record("seed \(seed), limit \(limit): \(error)")
                return
            }
        }
    }

    /// The live view's foundation: the chunks settled for a prefix that ends at a line boundary
    /// are exactly the first chunks of the whole text's split.
    @Test func settledChunksOfAPrefixArePrefixOfTheWholeSplit() throws {
        for seed in UInt64(7001)...8200 {
            var rng = SeededGenerator(seed: seed)
            let doc = GeneratedMarkdown(seed: seed, targetLength: rng.int(300...3000))
            let limit = rng.pick(Self.limits)
            let splitter = ChunkSplitter(limit: limit)
            let whole = splitter.split(doc.text, numbered: false)
            let lineEnds = doc.text.utf8.indices.filter { doc.text.utf8[$0] == 0x0A }
            guard !lineEnds.isEmpty else { continue }
            let cut = doc.text.utf8.index(after: rng.pick(lineEnds))
            let prefix = String(doc.text[..<cut])
            let settled = splitter.settledChunks(prefix)
            guard settled.chunks.count <= whole.count, Array(whole.prefix(settled.chunks.count)) == settled.chunks else {
                Issue.record("seed \(seed), limit \(limit): settled chunks of a prefix differ from the whole split")
                return
            }
            // The rest starts where the settled chunks end, inside the fence they leave open.
            let rest = String(decoding: prefix.utf8.dropFirst(settled.restUTF8), as: UTF8.self)
            if settled.chunks.isEmpty {
                #expect(settled.restUTF8 == 0)
            } else {
                let restChunk = (settled.fence.map { $0.reopeningLine + "\n" } ?? "") + rest
                #expect(try ChunkNormaliser.join(settled.chunks + [restChunk], numbered: false).text == prefix)
            }
        }
    }
}
