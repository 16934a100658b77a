import MessengerKit

/// Runs' answers as they grow, in Discord's messages.
typealias LiveMessages = MessengerKit.LiveMessages<RunWriter>
