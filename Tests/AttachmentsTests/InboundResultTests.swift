import PiRelaySDK
import Testing

@testable import AttachmentsPlugin

@Suite("The response fits one protocol line")
struct InboundResultTests {
    func image(_ name: String, bytes: Int) -> ItemOutcome {
        .image(name: name, format: .png, size: bytes, base64: String(repeating: "A", count: (bytes + 2) / 3 * 4))
    }

    @Test func theLargestImagesAreLeftOutFirst() {
        let outcomes = [image("small.png", bytes: 3000), image("large.png", bytes: 30_000), image("mid.png", bytes: 15_000)]
        let result = InboundResult(outcomes, budget: 30_000)
        #expect(result.images.count == 2)
        #expect(result.notes == ["large.png was not sent: too much image data for one message; send it on its own"])
        #expect(result.json.serializedBytes().count <= 30_000)
    }

    @Test func textIsLeftOutOnlyWhenNoImageIsLeft() {
        let block = FencedBlock.render(name: "a.txt", language: "text", text: String(repeating: "\"quoted\"\n", count: 1000))
        let outcomes = [image("p.png", bytes: 3000), ItemOutcome.text(name: "a.txt", size: 9000, block: block)]
        let result = InboundResult(outcomes, budget: 5000)
        #expect(result.images.isEmpty)
        #expect(
            result.notes == [
                "p.png was not sent: too much image data for one message; send it on its own",
                "a.txt was not included: too much text for one message; send it on its own",
            ])
        #expect(result.json.serializedBytes().count <= 5000)
    }

    @Test func whatFitsIsKept() {
        let outcomes = [image("a.png", bytes: 3000), image("b.png", bytes: 3000)]
        #expect(InboundResult(outcomes, budget: 9000).images.count == 2)
    }

    @Test func theDefaultBudgetMatchesTheProtocolLineLimit() {
        #expect(InboundResult.defaultBudget < 8 * 1024 * 1024)
        // Two images at the default cap would not fit one line together.
        let cap = AttachmentsConfig().imageMaxBytes
        let result = InboundResult([image("a.png", bytes: cap), image("b.png", bytes: cap)])
        #expect(result.images.count == 1)
        #expect(result.json.serializedBytes().count < 8 * 1024 * 1024 - 1024)
    }
}
