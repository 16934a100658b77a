import MessengerKit

/// Where a Discord run is shown: the channel (or thread) its messages go to.
struct Place: MessengerPlace {
    var channel: String

    var key: String { channel }
}
