import FMDecoding
import Foundation
import Testing

/// Truncated, corrupted and lying GGUF headers: the metadata reader throws ``VocabularyError`` for each, quickly and
/// without trusting declared sizes — never a trap, a stack overflow or an allocation sized by the file's claims.
struct GGUFMetadataReaderFuzzTests {
    /// A GGUF v3 header with one key of every value type, arrays of several element types (one nested) and a
    /// vocabulary-sized string array, so the file runs to a few kilobytes.
    static let wellFormed: Data = {
        var file = GGUFWriter(keyCount: 17)
        file.key("general.architecture", type: 8) { $0.string("none") }
        file.key("u8", type: 0) { $0.integer(UInt8(200)) }
        file.key("i8", type: 1) { $0.integer(Int8(-100)) }
        file.key("u16", type: 2) { $0.integer(UInt16(60_000)) }
        file.key("i16", type: 3) { $0.integer(Int16(-30_000)) }
        file.key("u32", type: 4) { $0.integer(UInt32(4_000_000_000)) }
        file.key("i32", type: 5) { $0.integer(Int32(-2_000_000_000)) }
        file.key("f32", type: 6) { $0.integer(Float(1.5).bitPattern) }
        file.key("bool", type: 7) { $0.integer(UInt8(1)) }
        file.key("u64", type: 10) { $0.integer(UInt64(1) << 40) }
        file.key("i64", type: 11) { $0.integer(Int64(-1) << 40) }
        file.key("f64", type: 12) { $0.integer(Double(2.25).bitPattern) }
        file.key("tokens", type: 9) { value in
            value.arrayHeader(elementType: 8, count: 300)
            for index in 0..<300 { value.string("tok\(index)") }
        }
        file.key("ids", type: 9) { value in
            value.arrayHeader(elementType: 5, count: 4)
            for id in [Int32(1), -2, 3, -4] { value.integer(id) }
        }
        file.key("scores", type: 9) { value in
            value.arrayHeader(elementType: 6, count: 3)
            for score in [Float(0.5), -1, 2] { value.integer(score.bitPattern) }
        }
        file.key("flags", type: 9) { value in
            value.arrayHeader(elementType: 7, count: 2)
            value.integer(UInt8(0))
            value.integer(UInt8(1))
        }
        file.key("nested", type: 9) { value in
            value.arrayHeader(elementType: 9, count: 2)
            value.arrayHeader(elementType: 0, count: 2)
            value.integer(UInt8(7))
            value.integer(UInt8(8))
            value.arrayHeader(elementType: 8, count: 1)
            value.string("inner")
        }
        return file.data
    }()

    func read(_ data: Data) throws(VocabularyError) -> GGUFMetadataReader {
        try GGUFMetadataReader(data: data, path: "fuzz.gguf")
    }

    /// The malformed-file error for `data`, or a recorded issue when it parses or fails some other way.
    func expectMalformed(_ data: Data, _ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try read(data)
            Issue.record("\(what()) parsed", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .malformedFile, "\(what()): \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func theFixtureReadsBackEveryType() throws {
        // Through a file once, as models are read; the other tests parse in memory to avoid thousands of writes.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gguf-fuzz-\(UUID().uuidString).gguf")
        try Self.wellFormed.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let metadata = try GGUFMetadataReader(contentsOf: file)
        #expect(Self.wellFormed.count > 3000)
        #expect(metadata.values.count == 17)
        #expect(metadata.string(for: "general.architecture") == "none")
        #expect(metadata.integer(for: "u8") == 200 && metadata.integer(for: "i8") == -100)
        #expect(metadata.integer(for: "u16") == 60_000 && metadata.integer(for: "i16") == -30_000)
        #expect(metadata.integer(for: "u32") == 4_000_000_000 && metadata.integer(for: "i32") == -2_000_000_000)
        #expect(metadata.integer(for: "u64") == 1 << 40 && metadata.integer(for: "i64") == -(1 << 40))
        guard case .float(1.5)? = metadata.values["f32"], case .float(2.25)? = metadata.values["f64"],
            case .bool(true)? = metadata.values["bool"], case .otherArray(count: 3)? = metadata.values["scores"],
            case .otherArray(count: 2)? = metadata.values["nested"]
        else {
            Issue.record("scalar or array values read wrongly: \(metadata.values)")
            return
        }
        #expect(metadata.strings(for: "tokens")?.last == "tok299")
        #expect(metadata.integers(for: "ids") == [1, -2, 3, -4])
    }

    /// Every strict prefix lacks part of the last declared key, so each must throw — at every offset.
    @Test func everyTruncationThrows() {
        for length in 0..<Self.wellFormed.count {
            expectMalformed(Self.wellFormed.prefix(length), "the first \(length) bytes")
        }
    }

    /// Random byte flips parse or throw ``VocabularyError`` (the reader's typed throw); the run must also see both
    /// outcomes, or the mutations never reached the values.
    @Test func randomByteFlipsParseOrThrow() {
        var rng = SeededGenerator(seed: 0x6667_5546)
        var parsed = 0
        var failed = 0
        for _ in 0..<1500 {
            var mutant = Self.wellFormed
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                // Most flips land in the first 512 bytes, where every structural field is.
                let limit = rng.chance(0.8) ? 512 : mutant.count
                let offset = Int.random(in: 0..<limit, using: &rng)
                mutant[offset] = rng.chance(0.5) ? UInt8.random(in: 0...255, using: &rng) : mutant[offset] ^ 0x80
            }
            do {
                _ = try read(mutant)
                parsed += 1
            } catch {
                failed += 1
            }
        }
        #expect(parsed > 50 && failed > 50, "parsed \(parsed), failed \(failed)")
    }

    /// (what, a header whose declared sizes far exceed the file)
    static let lies: [(String, Data)] = {
        func file(_ body: (inout GGUFWriter) -> Void) -> Data {
            var writer = GGUFWriter(keyCount: 1)
            body(&writer)
            return writer.data
        }
        let lengths: [UInt64] = [1 << 60, UInt64(Int.max), UInt64(Int.max) - 4, .max]
        var cases: [(String, Data)] = []
        for length in lengths {
            cases.append(("key length \(length)", file { $0.integer(length); $0.bytes("k") }))
            cases.append(("string value length \(length)", file { $0.key("k", type: 8) { $0.integer(length) } }))
        }
        for (type, name) in [(UInt32(8), "string"), (5, "int32"), (11, "int64"), (7, "bool"), (6, "float32"), (9, "array")] {
            for count in [UInt64(1) << 62, .max] {
                cases.append(("\(name) array count \(count)", file { $0.key("k", type: 9) { $0.arrayHeader(elementType: type, count: count) } }))
            }
        }
        cases.append(("key count 2^63", {
            var writer = GGUFWriter(keyCount: 1 << 63)
            writer.key("k", type: 0) { $0.integer(UInt8(1)) }
            return writer.data
        }()))
        cases.append(("an unknown array element type", file { $0.key("k", type: 9) { $0.arrayHeader(elementType: 99, count: 1 << 40) } }))
        cases.append(("arrays nested 100,000 deep", file { writer in
            writer.key("k", type: 9) { value in
                for _ in 0..<100_000 { value.arrayHeader(elementType: 9, count: 1) }
                value.arrayHeader(elementType: 0, count: 0)
            }
        }))
        return cases
    }()

    @Test(arguments: lies)
    func hugeDeclaredSizesThrowQuickly(_ what: String, _ data: Data) {
        let elapsed = ContinuousClock().measure { expectMalformed(data, what) }
        #expect(elapsed < .seconds(1), "\(what) took \(elapsed)")
    }

    /// Counts and lengths that fit in a large file (a model is gigabytes) but exceed what any model's metadata
    /// holds throw: an array of one-byte integers is kept as eight-byte ones, so the file's size alone would let
    /// such a header allocate several times the file.
    @Test func countsThatFitTheFileButNoMetadataAreRefused() {
        let limit = UInt64(1 << 24)
        let padding = Data(count: Int(limit) + 64)
        for (what, type) in [("int8 array", UInt32(1)), ("string", 8)] {
            var writer = GGUFWriter(keyCount: 1)
            if type == 8 {
                writer.key("k", type: 8) { $0.integer(limit + 1) }
            } else {
                writer.key("k", type: 9) { $0.arrayHeader(elementType: type, count: limit + 1) }
            }
            expectMalformed(writer.data + padding, "\(what) of \(limit + 1) in a file that holds it")
        }
    }

    @Test func garbageIsNotGGUF() {
        var rng = SeededGenerator(seed: 0x9A4B)
        for length in [0, 3, 4, 7, 24, 100, 4096] {
            let garbage = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) })
            expectMalformed(garbage, "\(length) random bytes")
        }
        // The right magic, then garbage: an unsupported version.
        expectMalformed(Data("GGUF".utf8) + Data(repeating: 0xFF, count: 64), "GGUF magic and 0xFF bytes")
    }
}

/// Writes GGUF v3 headers (little-endian) with any declared sizes, true or not.
struct GGUFWriter {
    private(set) var data = Data()

    init(keyCount: UInt64, tensorCount: UInt64 = 0) {
        bytes("GGUF")
        integer(UInt32(3))
        integer(tensorCount)
        integer(keyCount)
    }

    mutating func integer<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }

    mutating func bytes(_ text: String) { data.append(contentsOf: Array(text.utf8)) }

    mutating func string(_ text: String) {
        integer(UInt64(text.utf8.count))
        bytes(text)
    }

    mutating func arrayHeader(elementType: UInt32, count: UInt64) {
        integer(elementType)
        integer(count)
    }

    /// A key, its value type, then whatever `value` writes.
    mutating func key(_ name: String, type: UInt32, value: (inout GGUFWriter) -> Void) {
        string(name)
        integer(type)
        value(&self)
    }
}
