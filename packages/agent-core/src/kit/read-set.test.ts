import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { codeFingerprint } from "./disk-cache.ts";
import {
  firstChangedRead,
  noteExists,
  noteFolders,
  noteRead,
  noteReadError,
  noteResolved,
  pathSignature,
  RACY_CHANGE_MS,
  recordReads,
  settledReads,
  unchangedPaths,
  unchangedReads,
} from "./read-set.ts";

const scratch = () => mkdtempSync(join(tmpdir(), "kit-read-set-"));
const later = () => Date.now() + RACY_CHANGE_MS + 60_000;

describe("recordReads", () => {
  it("collects what the computation and everything it awaits notes; two at once each get at least their own", async () => {
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    const reader = async (name: string) => {
      noteRead(`${name}/a`);
      await tick();
      noteRead(`${name}/b`);
      await Promise.all([tick().then(() => noteRead(`${name}/c`))]);
      return name;
    };
    const [one, two] = await Promise.all([recordReads(() => reader("one")), recordReads(() => reader("two"))]);
    expect(one.value).toBe("one");
    expect(one.paths).toEqual(expect.arrayContaining(["one/a", "one/b", "one/c"]));
    expect(two.value).toBe("two");
    expect(two.paths).toEqual(expect.arrayContaining(["two/a", "two/b", "two/c"]));
    // alone, exactly its own
    expect((await recordReads(() => reader("three"))).paths).toEqual(["three/a", "three/b", "three/c"]);
    // noted outside any recording: kept nowhere
    noteRead("nowhere");
    expect((await recordReads(async () => 0)).paths).toEqual([]);
  });

  it("codeFingerprint notes the manifests and sources it hashed, also when it answers from memory", async () => {
    const root = scratch();
    const pkg = join(root, "node_modules", "@x", "q");
    mkdirSync(join(pkg, "src"), { recursive: true });
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@x/q", version: "1.0.0" }));
    writeFileSync(join(pkg, "src", "a.ts"), "one");
    const options = { packageName: "@x/q", from: pathToFileURL(join(root, "m.js")).href, sources: ["src/a.ts"] };
    const expected = [join(pkg, "package.json"), join(pkg, "src", "a.ts")];
    expect((await recordReads(async () => codeFingerprint(options))).paths).toEqual(expected);
    expect((await recordReads(async () => codeFingerprint(options))).paths).toEqual(expected);
    rmSync(root, { recursive: true, force: true });
  });
});

describe("pathSignature", () => {
  it("moves with every change a reader could see, and only then", () => {
    const root = scratch();
    const file = join(root, "rule.md");
    const dir = join(root, "rules");
    const link = join(root, "link.md");
    const other = join(root, "other.md");
    writeFileSync(file, "abc");
    writeFileSync(other, "xyz");
    mkdirSync(dir);
    symlinkSync(file, link);
    const paths = [file, dir, link, other, join(root, "missing.md")];
    const before = paths.map(pathSignature);
    expect(paths.map(pathSignature)).toEqual(before);
    expect(pathSignature(join(root, "missing.md"))).toBe("-");
    const changes: Array<[string, () => void, string[]]> = [
      // the same size, a new inode: an editor's save
      [
        "saved",
        () => {
          writeFileSync(`${file}.tmp`, "abd");
          renameSync(`${file}.tmp`, file);
        },
        [file, link],
      ],
      ["grown in place", () => writeFileSync(other, "xyz!"), [other]],
      ["chmod", () => chmodSync(other, 0o600), [other]],
      ["entry added", () => writeFileSync(join(dir, "new.md"), ""), [dir]],
      ["entry removed", () => rmSync(join(dir, "new.md")), [dir]],
      [
        "relinked",
        () => {
          rmSync(link);
          symlinkSync(other, link);
        },
        [link],
      ],
      ["appeared", () => writeFileSync(join(root, "missing.md"), ""), [join(root, "missing.md")]],
    ];
    let last = before;
    for (const [what, change, moved] of changes) {
      change();
      const now = paths.map(pathSignature);
      const changed = paths.filter((_, i) => now[i] !== last[i]);
      expect(changed, what).toEqual(moved);
      last = now;
    }
    rmSync(root, { recursive: true, force: true });
  });

  it("a dangling link and an unreachable path have signatures of their own", () => {
    const root = scratch();
    const link = join(root, "dangling");
    symlinkSync(join(root, "nothing"), link);
    expect(pathSignature(link)).toMatch(/>-$/);
    writeFileSync(join(root, "file"), "");
    expect(pathSignature(join(root, "file", "below"))).toBe("!ENOTDIR");
    rmSync(root, { recursive: true, force: true });
  });
});

describe("settledReads / unchangedReads", () => {
  const reads = (paths: string[], resolved: string[] = []) => ({ paths, exists: [], resolved, folders: [] });

  it("refuses paths changed within RACY_CHANGE_MS before the computation began, or since", () => {
    const root = scratch();
    const file = join(root, "rule.md");
    writeFileSync(file, "abc");
    expect(settledReads(reads([file]), Date.now())).toBeUndefined();
    // began before the file was written (it changed while being read), or a clock behind the file's times
    expect(settledReads(reads([file]), Date.now() - 3_600_000)).toBeUndefined();
    const kept = settledReads(reads([file, join(root, "missing")]), later());
    expect(kept).toEqual({
      signatures: [
        [file, pathSignature(file)],
        [join(root, "missing"), "-"],
      ],
      exists: [],
      resolved: [],
      folders: [],
    });
    expect(unchangedReads(kept!)).toBe(true);
    writeFileSync(join(root, "missing"), "");
    expect(unchangedReads(kept!)).toBe(false);
    rmSync(root, { recursive: true, force: true });
  });

  it("a read error that may pass (EMFILE) keeps nothing; one the files explain (ENOENT, EACCES) does", async () => {
    const errors = ["EMFILE", "EIO", "EAGAIN"].map((code) => Object.assign(new Error(code), { code }));
    for (const error of errors) {
      const recorded = await recordReads(async () => noteReadError(error));
      expect(recorded.unsettled).toBe(error.code);
      expect(settledReads(recorded, later())).toBeUndefined();
    }
    for (const code of ["ENOENT", "ENOTDIR", "ELOOP", "EACCES", "EPERM", "EISDIR"]) {
      const recorded = await recordReads(async () => noteReadError(Object.assign(new Error(code), { code })));
      expect(recorded.unsettled).toBeUndefined();
    }
    // not an fs error at all (a file that is not JSON): its content explains it
    expect((await recordReads(async () => noteReadError(new SyntaxError("bad")))).unsettled).toBeUndefined();
  });

  it("a resolved path keeps where it leads: a folder retargeted part-way along it is seen", async () => {
    const root = scratch();
    mkdirSync(join(root, "vendor", "sub"), { recursive: true });
    mkdirSync(join(root, "outside"));
    writeFileSync(join(root, "vendor", "sub", "r1.md"), "rule");
    const link = join(root, "r1.md");
    symlinkSync(join(root, "vendor", "sub", "r1.md"), link);
    const recorded = await recordReads(async () => noteResolved(link));
    expect(recorded).toMatchObject({ paths: [], resolved: [link] });
    const kept = settledReads(recorded, later())!;
    expect(unchangedReads(kept)).toBe(true);
    // the folder moves out and a link takes its place: the rule file (and the link to it) look the same
    renameSync(join(root, "vendor", "sub"), join(root, "outside", "sub"));
    symlinkSync(join(root, "outside", "sub"), join(root, "vendor", "sub"));
    expect(kept.signatures.every(([path, signature]) => pathSignature(path) === signature)).toBe(true);
    expect(unchangedReads(kept)).toBe(false);
    rmSync(root, { recursive: true, force: true });
  });

  it("unchangedPaths: a part of a result that depends on some of the paths holds while those did not change", async () => {
    const root = scratch();
    const [a, b, c] = ["a", "b", "c"].map((name) => join(root, name));
    for (const path of [a!, b!]) writeFileSync(path, "one");
    const kept = settledReads(
      await recordReads(async () => {
        noteRead(a!);
        noteRead(b!);
        noteExists(c!);
      }),
      later(),
    )!;
    writeFileSync(b!, "two, longer");
    expect(unchangedReads(kept)).toBe(false);
    expect(unchangedPaths(kept, [a!])).toBe(true);
    expect(unchangedPaths(kept, [a!, b!])).toBe(false);
    // only what was read counts: a path looked for, or never noted, is not known to be unchanged
    expect(unchangedPaths(kept, [c!])).toBe(false);
    expect(unchangedPaths(kept, [join(root, "d")])).toBe(false);
    rmSync(root, { recursive: true, force: true });
  });

  it("what only exists, only resolves or only holds folders is not judged by its listing", async () => {
    const root = scratch();
    const git = join(root, ".git");
    const home = join(root, "home");
    const tree = join(root, "src");
    mkdirSync(git);
    mkdirSync(home);
    mkdirSync(join(tree, "lib"), { recursive: true });
    const recorded = await recordReads(async () => {
      noteExists(git);
      noteExists(join(root, ".clinerules"));
      noteResolved(home);
      noteFolders(tree);
    });
    const kept = settledReads(recorded, later())!;
    // every git command writes in .git, a shell writes its history in the home, an editor saves by rename
    writeFileSync(join(git, "index.lock"), "");
    writeFileSync(join(home, ".history.new"), "");
    renameSync(join(home, ".history.new"), join(home, ".history"));
    writeFileSync(join(tree, "a.ts.tmp"), "");
    renameSync(join(tree, "a.ts.tmp"), join(tree, "a.ts"));
    expect(unchangedReads(kept)).toBe(true);
    // what the answer depends on: a folder added to the tree, .git turned into a file, .clinerules created
    const changes: Array<[() => void, string]> = [
      [() => mkdirSync(join(tree, "pkg")), `${tree} (its folders changed)`],
      [
        () => {
          rmSync(git, { recursive: true });
          writeFileSync(git, "gitdir: elsewhere");
        },
        `${git} (appeared, went or changed kind)`,
      ],
      [
        () => writeFileSync(join(root, ".clinerules"), ""),
        `${join(root, ".clinerules")} (appeared, went or changed kind)`,
      ],
    ];
    expect(firstChangedRead(kept)).toBeUndefined();
    for (const [change, said] of changes) {
      const before = settledReads(
        await recordReads(async () => {
          noteExists(git);
          noteExists(join(root, ".clinerules"));
          noteFolders(tree);
        }),
        later(),
      )!;
      change();
      expect(unchangedReads(before)).toBe(false);
      // what a start that cannot use its snapshot says about why
      expect(firstChangedRead(before)).toBe(said);
    }
    rmSync(root, { recursive: true, force: true });
  });
});
