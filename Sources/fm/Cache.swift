import ArgumentParser
import FMCache
import FMTagging
import Foundation

extension FM {
    /// `fm cache`: inspect or clear the result cache.
    struct Cache: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Manage the tagging result cache.",
            subcommands: [Clear.self, Info.self]
        )

        /// `fm cache clear`.
        struct Clear: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove every cached result.")

            func run() async throws {
                do {
                    let removed = try ResultCache(url: ResultCache.defaultURL).clear()
                    print("removed \(removed) cached results from \(ResultCache.defaultURL.path)")
                } catch {
                    throw CommandFailure("The cache at \(ResultCache.defaultURL.path) cannot be cleared: \(error)")
                }
            }
        }

        /// `fm cache info`.
        struct Info: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Show where the cache is and how many results it holds.")

            func run() async throws {
                do {
                    print("\(ResultCache.defaultURL.path): \(try ResultCache(url: ResultCache.defaultURL).count()) results")
                } catch {
                    throw CommandFailure("The cache at \(ResultCache.defaultURL.path) cannot be read: \(error)")
                }
            }
        }
    }
}
