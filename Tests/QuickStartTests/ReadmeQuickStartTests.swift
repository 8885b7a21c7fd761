import Testing

/// Reading the Quick start out of a README: which blocks are files, which lines are commands.
struct ReadmeQuickStartTests {
    static let readme = """
        # Title

        ```sh
        make run
        ```

        ## Quick start

        Install first:

        ```sh
        make install        # as root
        ```

        `Package.swift`:

        ```swift
        // swift-tools-version: 6.1
        ```

        A block whose introduction names no file is shown, not written:

        ```swift
        let ignored = true
        ```

        `Sources/App/main.swift`:

        ```swift
        print("hi")
        ```

        ```sh
        swift run           # prints ["a", "b"]
        ```

        ## Next section

        `Other.swift`:

        ```swift
        let outside = true
        ```
        """

    @Test func filesAreTheBlocksIntroducedByAPathAndCommandsLoseTheirComments() {
        let quickStart = ReadmeQuickStart(readme: Self.readme)
        #expect(quickStart.files.map(\.path) == ["Package.swift", "Sources/App/main.swift"])
        #expect(quickStart.files.map(\.contents) == ["// swift-tools-version: 6.1\n", "print(\"hi\")\n"])
        #expect(quickStart.commands == ["make install", "swift run"])
    }

    @Test(arguments: [
        ("`Package.swift`:", "Package.swift"),
        ("`Sources/TagDemo/main.swift`:", "Sources/TagDemo/main.swift"),
        ("`Package.swift`", nil),
        ("See `Package.swift`:", nil),
        ("`/etc/passwd`:", nil),
        ("`../escape.swift`:", nil),
    ] as [(String, String?)])
    func introducingLines(_ line: String, path: String?) {
        #expect(ReadmeQuickStart.path(introducing: line) == path)
    }

    @Test func aReadmeWithoutTheSectionHasNothing() {
        let quickStart = ReadmeQuickStart(readme: "# Title\n\n```sh\nmake run\n```\n")
        #expect(quickStart.files.isEmpty && quickStart.commands.isEmpty)
    }
}
