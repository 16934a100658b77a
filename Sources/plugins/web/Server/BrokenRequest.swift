/// A request's body broke (it is not HTTP) while its response was being written: the connection
/// closes, since no other answer may follow a response already under way.
struct BrokenRequest: Error {}
