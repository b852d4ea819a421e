import { fileURLToPath } from "node:url";
import { closeAfterEach, prepareCliHome, runPi, startModelServer } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { systemOf, toolTextsOf } from "./support.ts";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

const keep = closeAfterEach(afterEach);

describe("the real pi CLI with -e ./extensions/rulebook", () => {
  it("pi -p: rules reach the system prompt, read_rule works, warnings go to stderr", async () => {
    const script = [{ toolCalls: [{ name: "read_rule", arguments: { name: "rule://api" } }] }, { text: "All done." }];
    const server = keep(await startModelServer({ script }));
    const home = keep(
      prepareCliHome({
        server,
        files: {
          ".pi/rules/style.md": "---\nalwaysApply: true\n---\nUse two spaces.",
          ".cursor/rules/api.mdc":
            "---\ndescription: HTTP API conventions\nglobs: src/api/**\n---\nReturn JSON errors.",
          ".cursor/rules/quoted.mdc": '---\nalwaysApply: "true"\n---\nQuoted.',
        },
      }),
    );
    const result = await runPi(["-p", "Follow the rules.", "-e", PACKAGE_DIR], { home, timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("All done.");
    expect(server.requests).toHaveLength(2);
    const system = systemOf(server);
    // rulebook's section of pi 1.6's prompt, last
    expect(system).toContain(
      '\n\n<rulebook>\n# Always-apply rules\n\nFollow these rules at all times.\n\n<rule name="style">\nUse two spaces.\n</rule>',
    );
    expect(system.endsWith("</rules>\n</rulebook>")).toBe(true);
    expect(system).toContain(
      '<rules>\n<rule name="api">\n<description>HTTP API conventions</description>\n<glob>src/api/**</glob>\n<note>attached automatically when you read or edit a matching file</note>\n</rule>\n</rules>',
    );
    expect(toolTextsOf(server, 1)).toEqual(["Return JSON errors."]);
    expect(result.stderr).toContain('alwaysApply: ignored "true"');
  });

  it("pi -p --no-approve: the project's rulebook settings are ignored, and stderr says so; its rule files still count", async () => {
    const server = keep(await startModelServer({ script: [{ text: "ok" }] }));
    const home = keep(
      prepareCliHome({
        server,
        files: {
          ".pi/rules/style.md": "---\nalwaysApply: true\n---\nUse two spaces.",
          ".pi/settings.json": JSON.stringify({ rulebook: { disabledRules: ["style"] } }),
        },
      }),
    );
    const trusted = await runPi(["-p", "hi", "-e", PACKAGE_DIR], { home, timeoutMs: 60_000 });
    expect(trusted.code, trusted.stderr).toBe(0);
    const untrusted = await runPi(["-p", "hi", "--no-approve", "-e", PACKAGE_DIR], { home, timeoutMs: 60_000 });
    expect(untrusted.code, untrusted.stderr).toBe(0);
    const prompts = server.requests.map((_request, i) => systemOf(server, i));
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).not.toContain("Use two spaces.");
    expect(prompts[1]).toContain('<rule name="style">\nUse two spaces.\n</rule>');
    expect(untrusted.stderr).toContain(
      ".pi/settings.json: rulebook: ignored: pi does not trust this project (trust it with /trust, or --approve for one run)",
    );
    expect(trusted.stderr).not.toContain("trust");
  });
});
