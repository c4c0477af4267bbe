Feature: PCManFM-Qt, a Qt file manager
  Folders, a status bar and context menus, on Debian's X11 data folder.

  Background:
    Given I launch 'pcmanfm-qt /usr/share/X11'

  @sample
  Scenario: The folder's files are listed
    Then I should see 'rgb.txt'
    And I should see 'xkb'
    And I should see '4 item(s)'

  Scenario: Opening a folder shows what is inside
    When I double-click 'xkb'
    Then I should see 'symbols'
    And I should see 'keycodes'

  Scenario: The path bar goes back up the tree
    When I click the 'share' button
    Then I should see 'X11'
    And I should see the 'share' tab

  Scenario: A file's context menu offers to open it
    When I right-click 'rgb.txt'
    Then I should see the 'Open' menu item
    And I should see 'Properties'
    When I press 'Escape'
    Then I should not see 'Properties'

  Scenario: The detailed list shows columns
    When I click the 'Detailed List' button
    Then I should see 'Name'
    And I should see 'Size'

  Scenario: A file's properties in a dialog
    When I right-click 'rgb.txt'
    And I click 'Properties'
    Then I should see 'rgb.txt'
    And I should see 'Location:'
