export { formatSeamLog, SeamLog } from "./seams/seam-log.ts";
