/// A time zone that cannot be used, with what to do about it.
package struct ZoneError: Error, CustomStringConvertible, Equatable {
    package var name: String
    package var reason: String
    package var description: String { "time zone \(name) \(reason)" }
}
