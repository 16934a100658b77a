/// A schedule that cannot be made as asked, with words for the person who asked.
package struct ScheduleError: Error, CustomStringConvertible, Equatable {
    package var description: String

    package init(_ description: String) { self.description = description }
}
