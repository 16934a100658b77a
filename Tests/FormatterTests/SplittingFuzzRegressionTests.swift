import Testing

@testable import FormatterPlugin

/// Inputs the splitter fuzz target (Sources/Fuzz/Splitter) found.
@Suite struct SplittingFuzzRegressionTests {
    /// A fence opened by a very long run of backticks or tildes had to be closed and reopened in
    /// every chunk, which alone took more than the limit: chunks of 160 units at a limit of 100.
    @Test(arguments: [(100, 150), (2000, 3000)])
    func longFenceMarkersNeverPushAChunkOverTheLimit(limit: Int, marker: Int) {
        for character in ["`", "~"] {
            let run = String(repeating: character, count: marker)
            let text = run + "\n" + String(repeating: "code line here\n", count: limit / 5) + run + "\n"
            for numbered in [true, false] {
                let chunks = ChunkSplitter(limit: limit).split(text, numbered: numbered)
                #expect(chunks.count > 1)
                #expect(chunks.allSatisfy { $0.utf16.count <= limit }, "\(chunks.map(\.utf16.count))")
                if !numbered { #expect(chunks.joined() == text, "only the labels are added") }
            }
        }
    }
}
