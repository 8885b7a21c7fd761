public import Foundation

/// Reads the key/value metadata section of a GGUF model file (version 2 or 3), ignoring tensors.
///
/// Only the tokenizer keys matter to the decoder, but every value type is parsed so that any key can be skipped.
/// The file is memory-mapped; nothing but the requested values is copied.
///
/// ```swift
/// let metadata = try GGUFMetadataReader(contentsOf: URL(fileURLWithPath: path))
/// let tokens = metadata.strings(for: "tokenizer.ggml.tokens")
/// ```
public struct GGUFMetadataReader: Sendable {
    /// One metadata value; arrays keep only the element kinds the tokenizer needs.
    public enum Value: Sendable {
        /// Any integer type, widened.
        case integer(Int64)
        /// `f32` or `f64`, widened.
        case float(Double)
        /// A boolean.
        case bool(Bool)
        /// A UTF-8 string.
        case string(String)
        /// An array of strings.
        case stringArray([String])
        /// An array of integers, widened.
        case integerArray([Int64])
        /// An array of another element type (floats, bools, nested arrays), with its element count.
        case otherArray(count: Int)
    }

    /// All metadata key/value pairs by key.
    public let values: [String: Value]

    /// Parses the metadata of the GGUF file at `url`.
    ///
    /// - Throws: ``VocabularyError`` when the file is missing, is not GGUF, or is truncated.
    public init(contentsOf url: URL) throws(VocabularyError) {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw VocabularyError(.fileNotFound, "cannot read GGUF file at \(url.path): \(error)")
        }
        try self.init(data: data, path: url.path)
    }

    /// Parses the metadata of GGUF file contents already in memory.
    ///
    /// - Parameters:
    ///   - data: The file's bytes, or a prefix that holds the whole metadata section.
    ///   - path: The file's name in error messages.
    /// - Throws: ``VocabularyError`` when the data is not GGUF or is truncated.
    package init(data: Data, path: String) throws(VocabularyError) {
        let parsed = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<[String: Value], VocabularyError> in
            var cursor = Cursor(bytes: raw)
            do throws(VocabularyError) {
                return .success(try cursor.readMetadata(path: path))
            } catch {
                return .failure(error)
            }
        }
        values = try parsed.get()
    }

    /// The string array stored under `key`, if any.
    public func strings(for key: String) -> [String]? {
        if case .stringArray(let array) = values[key] { return array }
        return nil
    }

    /// The integer array stored under `key`, if any.
    public func integers(for key: String) -> [Int64]? {
        if case .integerArray(let array) = values[key] { return array }
        return nil
    }

    /// The integer stored under `key`, if any.
    public func integer(for key: String) -> Int64? {
        if case .integer(let value) = values[key] { return value }
        return nil
    }

    /// The string stored under `key`, if any.
    public func string(for key: String) -> String? {
        if case .string(let value) = values[key] { return value }
        return nil
    }
}

/// A bounds-checked little-endian reader over the mapped file.
private struct Cursor {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Bytes left after the cursor.
    var remaining: Int { bytes.count - offset }

    mutating func need(_ count: Int) throws(VocabularyError) {
        // Compared with what is left rather than as `offset + count`, which a declared length near `Int.max` overflows.
        guard count >= 0, count <= remaining else {
            throw VocabularyError(.malformedFile, "GGUF file truncated at byte \(offset)")
        }
    }

    /// Reads a declared length or count; one larger than `remaining / elementSize` cannot fit in the rest of the
    /// file, so it throws before anything converts it to `Int` (which traps above `Int.max`) or allocates for it.
    mutating func readCount(elementSize: Int) throws(VocabularyError) -> Int {
        let start = offset
        let count = try read(UInt64.self)
        guard count <= UInt64(remaining / elementSize) else {
            throw VocabularyError(.malformedFile, "GGUF file truncated: the count \(count) at byte \(start) exceeds the file")
        }
        return Int(count)
    }

    mutating func read<T: FixedWidthInteger>(_: T.Type) throws(VocabularyError) -> T {
        try need(MemoryLayout<T>.size)
        let value = bytes.loadUnaligned(fromByteOffset: offset, as: T.self)
        offset += MemoryLayout<T>.size
        return T(littleEndian: value)
    }

    /// The longest string read (a chat template is a few KiB; a token a few bytes): a model file is gigabytes, so
    /// its size alone does not keep a crafted length from copying most of it into one string.
    static let maximumStringLength = 1 << 24

    /// The most elements an array may declare (real vocabularies and merge lists hold a few hundred thousand):
    /// an array of one-byte integers is stored as eight-byte ones, so the file's size alone does not bound it.
    static let maximumArrayCount = 1 << 24

    mutating func readString() throws(VocabularyError) -> String {
        let start = offset
        let length = try readCount(elementSize: 1)
        guard length <= Self.maximumStringLength else {
            throw VocabularyError(.malformedFile, "GGUF string at byte \(start) declares \(length) bytes, more than any model's metadata holds")
        }
        let string = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self)
        offset += length
        return string
    }

    mutating func skip(_ count: Int) throws(VocabularyError) {
        try need(count)
        offset += count
    }

    mutating func readMetadata(path: String) throws(VocabularyError) -> [String: GGUFMetadataReader.Value] {
        try need(4)
        guard bytes[0] == 0x47, bytes[1] == 0x47, bytes[2] == 0x55, bytes[3] == 0x46 else {
            throw VocabularyError(.malformedFile, "\(path) is not a GGUF file (bad magic)")
        }
        offset = 4
        let version = try read(UInt32.self)
        guard version == 2 || version == 3 else {
            throw VocabularyError(.malformedFile, "\(path): unsupported GGUF version \(version)")
        }
        _ = try read(UInt64.self)  // tensor count
        let keyCount = try read(UInt64.self)
        var result: [String: GGUFMetadataReader.Value] = [:]
        for _ in 0..<keyCount {
            let key = try readString()
            let type = try read(UInt32.self)
            result[key] = try readValue(type: type)
        }
        return result
    }

    mutating func readScalarInteger(type: UInt32) throws(VocabularyError) -> Int64? {
        switch type {
        case 0: return Int64(try read(UInt8.self))
        case 1: return Int64(try read(Int8.self))
        case 2: return Int64(try read(UInt16.self))
        case 3: return Int64(try read(Int16.self))
        case 4: return Int64(try read(UInt32.self))
        case 5: return Int64(try read(Int32.self))
        case 10: return Int64(bitPattern: try read(UInt64.self))
        case 11: return try read(Int64.self)
        default: return nil
        }
    }

    /// The fewest bytes a value of `type` takes; nil for an unknown type.
    static func minimumSize(of type: UInt32) -> Int? {
        switch type {
        case 0, 1, 7: 1
        case 2, 3: 2
        case 4, 5, 6: 4
        case 8, 10, 11, 12: 8
        case 9: 12  // element type and count
        default: nil
        }
    }

    /// How deeply arrays of arrays may nest: each level recurses, so a file of nested array headers must not be
    /// able to overflow the stack (llama.cpp itself writes no nested arrays).
    static let maximumArrayDepth = 8

    mutating func readValue(type: UInt32, depth: Int = 0) throws(VocabularyError) -> GGUFMetadataReader.Value {
        if let integer = try readScalarInteger(type: type) { return .integer(integer) }
        switch type {
        case 6: return .float(Double(Float(bitPattern: try read(UInt32.self))))
        case 7: return .bool(try read(UInt8.self) != 0)
        case 8: return .string(try readString())
        case 12: return .float(Double(bitPattern: try read(UInt64.self)))
        case 9:
            guard depth < Self.maximumArrayDepth else {
                throw VocabularyError(.malformedFile, "GGUF arrays nest more than \(Self.maximumArrayDepth) deep at byte \(offset)")
            }
            let elementType = try read(UInt32.self)
            guard let elementSize = Self.minimumSize(of: elementType) else {
                throw VocabularyError(.malformedFile, "unknown GGUF array element type \(elementType) at byte \(offset - 4)")
            }
            // Checked against the rest of the file before `reserveCapacity` below trusts it.
            let count = try readCount(elementSize: elementSize)
            guard count <= Self.maximumArrayCount else {
                throw VocabularyError(.malformedFile, "GGUF array at byte \(offset - 8) declares \(count) elements, more than any model's metadata holds")
            }
            // Reserved up to a bound: the elements are read one by one, so a lying count fails before much is allocated.
            let reserved = min(count, 1 << 16)
            switch elementType {
            case 8:
                var strings: [String] = []
                strings.reserveCapacity(reserved)
                for _ in 0..<count { strings.append(try readString()) }
                return .stringArray(strings)
            case 0, 1, 2, 3, 4, 5, 10, 11:
                var integers: [Int64] = []
                integers.reserveCapacity(reserved)
                for _ in 0..<count { integers.append(try readScalarInteger(type: elementType) ?? 0) }
                return .integerArray(integers)
            default:
                for _ in 0..<count { _ = try readValue(type: elementType, depth: depth + 1) }
                return .otherArray(count: count)
            }
        default:
            throw VocabularyError(.malformedFile, "unknown GGUF value type \(type) at byte \(offset)")
        }
    }
}
