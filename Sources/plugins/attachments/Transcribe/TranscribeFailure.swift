/// Why a voice note was not transcribed, in words for the person who sent it.
struct TranscribeFailure: Error, Sendable, Equatable {
    var reason: String

    init(_ reason: String) { self.reason = reason }
}
