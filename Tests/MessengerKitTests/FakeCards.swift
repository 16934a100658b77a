import MessengerKit

/// Cards whose closings are noted and shown one at a time beside the delivery lane.
actor FakeCards: QuestionClosings {
    nonisolated let closingsNoted: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private var closings: [(card: Int, text: String)] = []
    private(set) var forgotten: [Int] = []

    init() {
        (closingsNoted, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func close(_ card: Int, text: String) {
        closings.append((card, text))
        wake.yield()
    }

    var nextClosing: (card: Int, text: String)? { closings.first }

    func closingShown(_ card: Int) async {
        closings.removeAll { $0.card == card }
        forgotten.append(card)
    }
}
