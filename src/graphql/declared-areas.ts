import { declaredAreasGraphql } from "./area.js";

// Imported by src/areas.ts after the areas declared as one, where their GraphQL goes in the schema's making.
declaredAreasGraphql();
