import {
  ActivityEntryCreateDocument,
  ActivityEntryDeleteDocument,
  ActivityEntryListDatedDocument,
  ActivityEntryListDocument,
  ActivityEntryReadDocument,
  ActivityEntryUpdateDocument,
} from "../generated/activity.js";
import type { RestOperation, RestParam } from "../types.js";
import { listParams } from "../list-params.js";
import { fieldParams } from "../field-params.js";
import { ACTIVITY_FIELDS, ACTIVITY_LIST } from "../../src/activity/service.js";
import "../responses/array.js";

/** Activity (API document: 1.0 and 1.1; 1.1's list adds start_date, end_date and recipients). */
const VERSIONS = ["1.0", "1.1"];
const id: RestParam = { name: "id", type: "integer", required: true, description: "Activity entry identifier.", variable: "id" };

/** `crated_by` is the document's spelling; `created_by` (the answers' key) is read when it is absent. */
const writeParams = (params: RestParam[]) => params.map((param) => (param.name === "crated_by" ? { ...param, alsoNamed: ["created_by"] } : param));

const operations: RestOperation[] = [
  {
    area: "activity",
    method: "POST",
    path: "/activity",
    versions: VERSIONS,
    task: "create an entry",
    params: writeParams(fieldParams(ACTIVITY_FIELDS, "create")),
    document: ActivityEntryCreateDocument,
    resultField: "createActivityEntry",
    response: { kind: "record" },
    status: 201,
    access: "signed-in user",
  },
  {
    area: "activity",
    method: "GET",
    path: "/activity/list",
    versions: ["1.0"],
    task: "list entries",
    params: listParams(ACTIVITY_LIST),
    document: ActivityEntryListDocument,
    resultField: "activityEntries",
    response: { kind: "array" },
    status: 200,
    access: "anyone",
  },
  {
    area: "activity",
    method: "GET",
    path: "/activity/list",
    versions: ["1.1"],
    task: "list entries",
    params: [
      ...listParams(ACTIVITY_LIST),
      { name: "start_date", type: "string", required: false, description: "Created at or after: YYYY-MM-DD or YYYY-MM-DD HH:mm:ss (UTC).", variable: "startDate" },
      { name: "end_date", type: "string", required: false, description: "Created before: YYYY-MM-DD or YYYY-MM-DD HH:mm:ss (UTC).", variable: "endDate" },
      { name: "recipients", type: "string", required: false, description: "Filter by list of <type>:<id> recipients the activity was sent to.", variable: "recipients" },
    ],
    document: ActivityEntryListDatedDocument,
    resultField: "activityEntries",
    response: { kind: "array" },
    status: 200,
    access: "anyone",
  },
  {
    area: "activity",
    method: "DELETE",
    path: "/activity/{id}",
    versions: VERSIONS,
    task: "delete an entry",
    params: [id],
    document: ActivityEntryDeleteDocument,
    resultField: "deleteActivityEntry",
    response: { kind: "empty" },
    status: 204,
    access: "signed-in user",
  },
  {
    area: "activity",
    method: "GET",
    path: "/activity/{id}",
    versions: VERSIONS,
    task: "retrieve an entry",
    params: [id],
    document: ActivityEntryReadDocument,
    resultField: "activityEntry",
    response: { kind: "record" },
    status: 200,
    access: "anyone",
  },
  {
    area: "activity",
    method: "PUT",
    path: "/activity/{id}",
    versions: VERSIONS,
    task: "update an entry",
    params: [id, ...writeParams(fieldParams(ACTIVITY_FIELDS, "replace", { except: ["recipients"] }))],
    document: ActivityEntryUpdateDocument,
    resultField: "updateActivityEntry",
    response: { kind: "record" },
    status: 200,
    access: "signed-in user",
  },
];

export default operations;
