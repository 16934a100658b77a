import PiRelaySDK

/// One run's file in `LiveMessages.folder`: the run-and-place key and the messages it shows.
struct LiveRunFile<MessageID: Codable & Sendable & Equatable>: Codable, Sendable {
    var key: String
    var messages: [LiveRun<MessageID>.Message]
}
