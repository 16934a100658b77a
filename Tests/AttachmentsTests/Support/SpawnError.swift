/// posix_spawn or pipe failed in a test.
struct SpawnError: Error, CustomStringConvertible {
    let description: String
}
