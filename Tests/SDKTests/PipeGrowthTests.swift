import Testing

@testable import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// A pipe found full grows to 1 MiB and one found nearly empty shrinks back to its first size;
/// no more than `maxGrown` pipes are grown at once, a closed one gives its place back, and only
/// the pipes the policy grew are shrunk or counted.
@Suite struct PipeGrowthTests {
    static let standard = PipeGrowth.standard
    static let grown = PipeGrowth.grown

    @Test func aFullReadGrowsAndAReadBelowTheFirstSizeShrinks() {
        var growth = PipeGrowth()
        var pipe = PipeSize(capacity: Self.standard)
        #expect(growth.afterRead(Self.standard - 1, pipe: pipe) == nil, "a pipe not found full stays")
        #expect(growth.afterRead(Self.standard, pipe: pipe) == Self.grown)
        growth.resized(&pipe, to: Self.grown)
        #expect(growth.grownPipes == 1 && pipe.grown)
        #expect(growth.afterRead(Self.grown, pipe: pipe) == nil, "grown already")
        #expect(growth.afterRead(Self.standard, pipe: pipe) == nil, "still busy")
        #expect(growth.afterRead(Self.standard - 1, pipe: pipe) == Self.standard)
        growth.resized(&pipe, to: Self.standard)
        #expect(growth.grownPipes == 0 && !pipe.grown)
    }

    @Test func atMostMaxGrownPipesGrowAndAClosedOneGivesItsPlaceBack() {
        var growth = PipeGrowth()
        var pipes: [PipeSize] = []
        for _ in 0..<PipeGrowth.maxGrown {
            var pipe = PipeSize(capacity: Self.standard)
            #expect(growth.afterRead(Self.standard, pipe: pipe) == Self.grown)
            growth.resized(&pipe, to: Self.grown)
            pipes.append(pipe)
        }
        let next = PipeSize(capacity: Self.standard)
        #expect(growth.afterRead(Self.standard, pipe: next) == nil, "the pipes' budget is used up")
        growth.closed(pipes[0])
        #expect(growth.afterRead(Self.standard, pipe: next) == Self.grown)
        // Refused by Linux: nothing is counted.
        var refused = next
        growth.resized(&refused, to: Self.standard)
        #expect(growth.grownPipes == PipeGrowth.maxGrown - 1 && !refused.grown)
    }

    /// A pipe whose owner is over its soft limit has 8 KiB: found full, it asks for 1 MiB too,
    /// and shrinks back to its 8 KiB.
    @Test func aSmallerPipeFoundFullAsksToGrow() {
        var growth = PipeGrowth()
        var pipe = PipeSize(capacity: 8 << 10)
        #expect(growth.afterRead(8 << 10, pipe: pipe) == Self.grown)
        growth.resized(&pipe, to: Self.grown)
        #expect(growth.afterRead(10, pipe: pipe) == 8 << 10)
    }

    /// A pipe that starts larger than 64 KiB (Linux's default where pages are 16 or 64 KiB, or
    /// a writer that resized its own) is never shrunk below its own size, and neither it nor
    /// its closing touches the count of grown pipes.
    @Test func aPipeLargerFromTheStartIsNeitherShrunkNorCounted() {
        var growth = PipeGrowth()
        var grownOne = PipeSize(capacity: Self.standard)
        growth.resized(&grownOne, to: Self.grown)
        for size in [256 << 10, Self.grown, 4 << 20] {
            let pipe = PipeSize(capacity: size)
            #expect(growth.afterRead(10, pipe: pipe) == nil, "\(size)")
            #expect(growth.afterRead(size, pipe: pipe) == (size < Self.grown ? Self.grown : nil), "\(size)")
            growth.closed(pipe)
        }
        #expect(growth.grownPipes == 1)
    }

    #if os(Linux)
    @Test func aRealPipeGrowsShrinksAndARefusalIsNotAskedAgain() throws {
        var fds: [Int32] = [-1, -1]
        try #require(pipe(&fds) == 0)
        defer { for fd in fds { close(fd) } }
        let first = try #require(PipeCapacity.of(fds[0]))
        var growth = PipeGrowth()
        let grown = try #require(PipeCapacity.adjust(fds[0], pipe: PipeSize(capacity: first), afterRead: first, growth: &growth))
        #expect(grown.capacity == Self.grown && grown.grown && growth.grownPipes == 1)
        #expect(PipeCapacity.of(fds[1]) == Self.grown, "one pipe: both ends see it")
        let shrunk = try #require(PipeCapacity.adjust(fds[0], pipe: grown, afterRead: 10, growth: &growth))
        #expect(shrunk.capacity == first && !shrunk.grown && growth.grownPipes == 0)
        #expect(PipeCapacity.of(fds[0]) == first)
        let file = open("/dev/null", O_RDONLY)
        defer { close(file) }
        #expect(PipeCapacity.of(file) == nil)
        #expect(PipeCapacity.set(file, to: Self.grown) == nil)
        // Refused to grow (as Linux refuses a user past its pipe budget): nil, never asked again.
        var refused = PipeGrowth()
        #expect(PipeCapacity.adjust(file, pipe: PipeSize(capacity: Self.standard), afterRead: Self.standard, growth: &refused) == nil)
        // A shrink refused is left for the next short read, the pipe still counted as grown.
        var held = PipeSize(capacity: Self.standard)
        refused.resized(&held, to: Self.grown)
        #expect(PipeCapacity.adjust(file, pipe: held, afterRead: 10, growth: &refused) == held)
        #expect(refused.grownPipes == 1)
    }
    #endif
}
