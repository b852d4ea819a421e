import { claudeProvider } from "./claude.ts";
import { clineProvider } from "./cline.ts";
import { copilotProvider } from "./copilot.ts";
import { cursorProvider } from "./cursor.ts";
import { extraProvider } from "./extra.ts";
import { nativeProvider } from "./native.ts";
import type { RuleProvider } from "./provider.ts";
import { windsurfProvider } from "./windsurf.ts";

/**
 * Every provider, in the documented order used to break priority ties:
 * native, extra (100); cursor, windsurf, claude (50); cline, copilot (40).
 */
export const PROVIDERS: readonly RuleProvider[] = [
  nativeProvider,
  extraProvider,
  cursorProvider,
  windsurfProvider,
  claudeProvider,
  clineProvider,
  copilotProvider,
];
