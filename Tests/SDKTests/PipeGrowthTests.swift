import Testing

@testable import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// A pipe found full grows to 1 MiB and one found nearly empty shrinks back; no more than
/// `maxGrown` pipes are grown at once, and a closed one gives its place back.
@Suite struct PipeGrowthTests {
    static let standard = PipeGrowth.standard
    static let grown = PipeGrowth.grown

    @Test func aFullReadGrowsAndAReadBelowTheStandardSizeShrinks() {
        var growth = PipeGrowth()
        #expect(growth.afterRead(Self.standard - 1, capacity: Self.standard) == nil, "a pipe not found full stays")
        #expect(growth.afterRead(Self.standard, capacity: Self.standard) == Self.grown)
        growth.resized(from: Self.standard, to: Self.grown)
        #expect(growth.grownPipes == 1)
        #expect(growth.afterRead(Self.grown, capacity: Self.grown) == nil, "grown already")
        #expect(growth.afterRead(Self.standard, capacity: Self.grown) == nil, "still busy")
        #expect(growth.afterRead(Self.standard - 1, capacity: Self.grown) == Self.standard)
        growth.resized(from: Self.grown, to: Self.standard)
        #expect(growth.grownPipes == 0)
    }

    @Test func atMostMaxGrownPipesGrowAndAClosedOneGivesItsPlaceBack() {
        var growth = PipeGrowth()
        for _ in 0..<PipeGrowth.maxGrown {
            #expect(growth.afterRead(Self.standard, capacity: Self.standard) == Self.grown)
            growth.resized(from: Self.standard, to: Self.grown)
        }
        #expect(growth.afterRead(Self.standard, capacity: Self.standard) == nil, "the pipes' budget is used up")
        growth.closed(capacity: Self.grown)
        #expect(growth.afterRead(Self.standard, capacity: Self.standard) == Self.grown)
        // Refused by Linux: nothing is counted.
        growth.resized(from: Self.standard, to: Self.standard)
        #expect(growth.grownPipes == PipeGrowth.maxGrown - 1)
    }

    /// A pipe whose owner is over its soft limit has 8 KiB: found full, it asks for 1 MiB too.
    @Test func aSmallerPipeFoundFullAsksToGrow() {
        #expect(PipeGrowth().afterRead(8 << 10, capacity: 8 << 10) == Self.grown)
    }

    #if os(Linux)
    @Test func aRealPipeGrowsShrinksAndARefusalIsNotAskedAgain() throws {
        var fds: [Int32] = [-1, -1]
        try #require(pipe(&fds) == 0)
        defer { for fd in fds { close(fd) } }
        #expect(PipeCapacity.of(fds[0]) == Self.standard)
        var growth = PipeGrowth()
        #expect(PipeCapacity.adjust(fds[0], capacity: Self.standard, afterRead: Self.standard, growth: &growth) == Self.grown)
        #expect(PipeCapacity.of(fds[1]) == Self.grown, "one pipe: both ends see it")
        #expect(PipeCapacity.adjust(fds[0], capacity: Self.grown, afterRead: 10, growth: &growth) == Self.standard)
        #expect(PipeCapacity.of(fds[0]) == Self.standard)
        #expect(growth.grownPipes == 0)
        let file = open("/dev/null", O_RDONLY)
        defer { close(file) }
        #expect(PipeCapacity.of(file) == nil)
        #expect(PipeCapacity.set(file, to: Self.grown) == nil)
        // Refused to grow (as Linux refuses a user past its pipe budget): never asked again.
        var refused = PipeGrowth()
        #expect(PipeCapacity.adjust(file, capacity: Self.standard, afterRead: Self.standard, growth: &refused) == nil)
        #expect(refused.grownPipes == 0)
        // A shrink refused is left for the next short read.
        #expect(PipeCapacity.adjust(file, capacity: Self.grown, afterRead: 10, growth: &refused) == Self.grown)
    }
    #endif
}
